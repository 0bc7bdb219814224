"""A finished run keeps what it answered and what it cost, not the tool outputs it read (issue 29 item 5):
those are what resuming needs, and a finished run is never resumed. A run still working keeps them all."""

from __future__ import annotations

import redis

from workers.runs.state import RunState, StepRecord, Usage
from workers.runs.store import RunStore, run_key

LONG = "issue #3 body, comments and labels " * 200


def _worked(status: str) -> RunState:
    run = RunState(question="How do retries back off?", status=status)  # type: ignore[arg-type]
    run.items = [
        {"type": "message", "role": "user", "content": run.question},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x" * 4000},
        {"type": "function_call", "call_id": "call_1", "name": "get_issue", "arguments": '{"issue_id": 3}'},
        {"type": "function_call_output", "call_id": "call_1", "output": LONG},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "They back off."}]},
    ]
    run.steps = [StepRecord(index=1, input_tokens=900, output_tokens=40, tools=["get_issue"]), StepRecord(index=2)]
    run.usage = Usage(input_tokens=900, output_tokens=40)
    run.answer, run.sources, run.cost_usd = "They back off.", ["retries"], 0.0012
    return run


def test_a_finished_run_is_stored_without_its_tool_outputs(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    run = _worked("done")
    store.save(run)
    kept = store.load(run.id)
    assert (kept.question, kept.answer, kept.sources, kept.cost_usd) == (
        run.question,
        run.answer,
        run.sources,
        run.cost_usd,
    )
    assert kept.steps == run.steps and kept.usage == run.usage
    assert [i["type"] for i in kept.items] == [i["type"] for i in run.items]  # calls stay paired with an output
    output = next(i for i in kept.items if i["type"] == "function_call_output")
    assert output["call_id"] == "call_1" and LONG not in output["output"]
    assert "encrypted_content" not in next(i for i in kept.items if i["type"] == "reasoning")
    assert LONG in next(
        i["output"] for i in run.items if i["type"] == "function_call_output"
    )  # the job's copy is untouched
    assert len(redis_conn.get(run_key(run.id)) or b"") < 2500


def test_a_finished_run_keeps_what_its_readers_use_of_each_item_not_what_only_the_api_reads(
    redis_conn: redis.Redis,
) -> None:
    """Ids, statuses and empty annotation lists are sent back on a resume only (issue 40: the record is most of
    what a run keeps for 30 days); the call's name, arguments and call id, the text and a citation stay."""
    store = RunStore(redis_conn)
    run = _worked("done")
    cite = {"type": "url_citation", "url": "https://example.org/retries"}
    run.items[2] |= {"id": "fc_" + "a" * 48, "status": "completed"}
    run.items[4] |= {"id": "msg_" + "b" * 48, "status": "completed"}
    run.items[4]["content"] = [
        {"type": "output_text", "text": "They back off.", "annotations": [], "logprobs": []},
        {"type": "output_text", "text": "See retries.", "annotations": [cite]},
    ]
    store.save(run)
    kept = store.load(run.id).items
    assert kept[2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_issue",
        "arguments": '{"issue_id": 3}',
    }
    assert kept[4] == {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "output_text", "text": "They back off."},
            {"type": "output_text", "text": "See retries.", "annotations": [cite]},
        ],
    }
    assert kept[1] == {"type": "reasoning", "summary": []}
    assert run.items[2]["id"] == "fc_" + "a" * 48  # the job's copy is untouched
    raw = redis_conn.get(run_key(run.id)) or b""
    assert b"fc_" not in raw and b"msg_" not in raw and b"completed" not in raw


def test_a_run_that_may_still_resume_keeps_every_tool_output(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    for status in ("running", "awaiting_approval"):
        run = _worked(status)
        store.save(run)
        assert store.load(run.id).items == run.items
