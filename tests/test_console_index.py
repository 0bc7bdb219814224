"""The console's read model (issue 30): a run is filed as it pauses or ends, by time and by each filter,
with its results' previews; counted once per day however often it is saved; votes move it between filters."""

from __future__ import annotations

import json

import redis

from bot import feedback
from workers.runs import run_index
from workers.runs.state import AnsweredBy, Origin, RunState, StepRecord, Usage
from workers.runs.store import RunStore


def _run(status: str, answer: str = "They back off.") -> RunState:
    run = RunState(question="How do retries back off?", status=status,  # type: ignore[arg-type]
                   origin=Origin(kind="slack", channel="C1", user="U1", thread_ts="1.2", team="T1"))
    run.items = [{"type": "function_call", "call_id": "call_1", "name": "get_issue", "arguments": '{"issue_id": 3}'},
                 {"type": "function_call_output", "call_id": "call_1", "output": "issue 3 " * 200}]
    run.steps = [StepRecord(index=1, tools=["get_issue"])]
    run.usage = Usage(input_tokens=900, output_tokens=40)
    run.answer, run.cost_usd = answer, 0.0012
    run.answered_by = AnsweredBy(model="offline", data_dir="x")
    return run


def _ids(conn: redis.Redis, key: str) -> list[str]:
    return [m.decode() for m in conn.zrevrange(key, 0, -1)]


def test_a_finished_run_is_filed_once_under_each_filter_with_previews(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    queued = _run("queued")
    store.save(queued)
    assert _ids(redis_conn, run_index.all_key()) == []  # only paused or ended runs are filed
    run = _run("done")
    store.save(run)
    store.save(run)  # saved again (a surface remembering its message): filed and counted once
    assert _ids(redis_conn, run_index.all_key()) == [run.id]
    for facet, value in (("platform", "slack"), ("channel", "C1"), ("status", "done"), ("model", "offline")):
        assert _ids(redis_conn, run_index.facet_key(facet, value)) == [run.id], facet
    previews = json.loads(redis_conn.get(run_index.previews_key(run.id)) or "{}")
    assert previews["call_1"].startswith("issue 3") and len(previews["call_1"]) == run_index.PREVIEW_CHARS
    RunStore(redis_conn).save(store.load(run.id))  # a reloaded record (outputs gone) keeps the previews
    assert json.loads(redis_conn.get(run_index.previews_key(run.id)) or "{}") == previews
    day = redis_conn.hgetall(run_index.day_key(run_index.day_of(run.created_at)))
    assert day[b"runs"] == b"1" and day[b"cost_micro"] == b"1200" and day[b"tokens"] == b"940" and day[b"offline"] == b"1"


def test_a_paused_run_moves_to_its_final_status(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    run = _run("awaiting_approval")
    store.save(run)
    assert _ids(redis_conn, run_index.facet_key("status", "awaiting_approval")) == [run.id]
    run.status = "done"
    store.save(run)
    assert _ids(redis_conn, run_index.facet_key("status", "awaiting_approval")) == []
    assert _ids(redis_conn, run_index.facet_key("status", "done")) == [run.id]


def test_not_found_and_down_votes_are_gaps_and_votes_move_the_feedback_filter(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    unknown = _run("done", answer="I could not find anything about this in the docs or the issue tracker.")
    good = _run("done")
    store.save(unknown)
    store.save(good)
    assert _ids(redis_conn, run_index.gaps_key()) == [unknown.id]
    feedback.toggle(redis_conn, good.id, "U2", "down")
    assert set(_ids(redis_conn, run_index.gaps_key())) == {unknown.id, good.id}
    assert _ids(redis_conn, run_index.facet_key("feedback", "down")) == [good.id]
    feedback.toggle(redis_conn, good.id, "U2", "up")
    assert _ids(redis_conn, run_index.facet_key("feedback", "down")) == []
    assert _ids(redis_conn, run_index.facet_key("feedback", "up")) == [good.id]
    assert _ids(redis_conn, run_index.gaps_key()) == [unknown.id]
    row = run_index.Row.of(redis_conn.get(run_index.row_key(good.id)) or b"{}")
    assert (row.up, row.down, row.gap) == (1, 0, "")
    day = redis_conn.hgetall(run_index.day_key(run_index.day_of(good.created_at)))
    assert (day[b"up"], day[b"down"]) == (b"1", b"0")
