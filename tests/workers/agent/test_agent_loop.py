"""The agent loop against the strict scripted Responses API, through the real openai client."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.tokens import count
from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import call_outputs
from tests.standins.turns import Usage, reply_calls, reply_error, reply_incomplete, reply_text
from tests.support.agent_harness import build_agent, settings_for
from tests.support.paging import NOTE
from tools import ToolContext, dispatch, open_corpus, v2_registry
from workers.agent import context as ctxmgmt
from workers.agent.budget import Budget
from workers.agent.pairing import check_pairing
from workers.agent.stash import RedisStash
from workers.runs.state import RunState


def _inputs(model: ScriptedModel) -> list[list[dict]]:
    return [r.body["input"] for r in model.requests]


def test_parallel_calls_each_get_one_output_in_order(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(
        reply_calls(
            [
                ("search_docs", {"query": "ORB-1202", "k": 3}, "call_a"),
                ("search_issues", {"query": "ORB-1202", "state": None, "limit": 5, "detail": "concise"}, "call_b"),
            ],
            reasoning=True,
        ),
        reply_text("ORB-1202 is PermanentError, see error-codes."),
    )
    rt, agent, reporter = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url))
    run = agent.run(RunState(question="What does ORB-1202 mean?"))

    assert run.status == "done" and run.stop_reason == "done" and not run.partial
    assert run.answer == "ORB-1202 is PermanentError, see error-codes."
    second = _inputs(scripted_model)[1]
    assert check_pairing(second) == []
    kinds = [i["type"] for i in second]
    assert kinds == [
        "message",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert [i["call_id"] for i in second if i["type"] == "function_call_output"] == ["call_a", "call_b"]
    assert "ORB-1202" in call_outputs(scripted_model.requests[1].body)["call_a"]
    assert [s.tools for s in run.steps] == [["search_docs", "search_issues"], []]
    assert rt.store.load(run.id).answer == run.answer  # persisted
    assert (
        "tool",
        {
            "call_id": "call_a",
            "name": "search_docs",
            "arguments": json.dumps({"query": "ORB-1202", "k": 3}),
            "state": "done",
        },
    ) in reporter.events
    sent = scripted_model.requests[0].body
    assert sent["store"] is False and sent["include"] == ["reasoning.encrypted_content"]
    assert sent["max_output_tokens"] == 25_000 and sent["tool_choice"] == "auto"
    assert {t["name"] for t in sent["tools"]} >= {
        "search_docs",
        "get_doc_section",
        "search_issues",
        "get_issue",
        "calculate",
        "read_more",
    }


def test_max_steps_stops_with_a_wrap_up_call_without_tools(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    for n in range(3):
        scripted_model.script(reply_calls([("calculate", {"expression": f"{n}+1"})]))
    scripted_model.script(reply_text("Partial: I computed 1, 2 and 3."))
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_steps=3))
    run = agent.run(RunState(question="add things"))
    assert run.stop_reason == "max_steps" and run.partial and run.status == "partial"
    assert run.answer == "Partial: I computed 1, 2 and 3."
    last = scripted_model.requests[-1].body
    assert last["tool_choice"] == "none"
    assert "budget" in last["input"][-1]["content"]
    assert [s.wrap_up for s in run.steps] == [False, False, False, True]


def test_max_tokens_counts_input_and_output(tmp_path: Path, redis_url: str, scripted_model: ScriptedModel) -> None:
    scripted_model.script(
        reply_calls([("calculate", {"expression": "2*3"})], usage=Usage(input_tokens=900, output_tokens=200)),
        reply_text("6, but I stopped early.", usage=Usage(input_tokens=50, output_tokens=10)),
    )
    _, agent, _ = build_agent(
        settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_tokens=1000)
    )
    run = agent.run(RunState(question="2*3?"))
    assert run.stop_reason == "max_tokens" and run.partial
    assert run.usage.input_tokens == 950 and run.usage.output_tokens == 210


def test_max_seconds_is_working_time(tmp_path: Path, redis_url: str, scripted_model: ScriptedModel) -> None:
    """A microsecond of budget: the first step's model call has no time left, so it is never sent (a call never
    outlives the run's working seconds); the step's time is counted and the wrap-up, tools off, answers."""
    scripted_model.script(reply_text("2 (partial)."))
    _, agent, _ = build_agent(
        settings_for(tmp_path, redis_url, scripted_model.base_url), budget=Budget(max_seconds=0.000001)
    )
    run = agent.run(RunState(question="1+1"))
    assert run.stop_reason == "max_seconds" and run.partial and run.seconds_spent > 0
    [wrap_up] = scripted_model.requests
    assert wrap_up.body["tool_choice"] == "none" and run.answer == "2 (partial)."


def test_consecutive_error_steps_stop_the_run_and_a_good_step_resets_the_count(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    bad = ("get_doc_section", {"doc_id": "retries", "heading": None})
    scripted_model.script(
        reply_calls([bad]),
        reply_incomplete(),
        reply_calls([("calculate", {"expression": "1+1"})]),  # resets the count
        reply_calls([bad]),
        reply_calls([("calculate", {"expression": "1/0"})]),
        reply_incomplete(),
        reply_text("I kept hitting errors."),
    )
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url))
    run = agent.run(RunState(question="x"))
    assert run.stop_reason == "max_errors" and run.partial
    assert [s.errors > 0 for s in run.steps[:-1]] == [True, True, False, True, True, True]
    outputs = call_outputs(scripted_model.requests[1].body)
    assert next(iter(outputs.values())).startswith("Error: Unknown doc_id")


def test_long_results_are_cut_stashed_and_paged_with_read_more(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    """The model is shown the head of a long result; read_more pages, each within the result limit
    (never cut again), are exactly the text after it, to its end; an unknown ref is an error."""
    limit = 300
    outputs: list[str] = []

    def page_on(request: dict) -> object:
        out = list(call_outputs(request).values())[-1]
        outputs.append(out)
        notes = list(NOTE.finditer(out))
        if notes and notes[-1].end() == len(out):
            return reply_calls([("read_more", {"ref": notes[-1]["ref"], "offset": int(notes[-1]["offset"])})])
        if out.startswith("Error:"):
            return reply_text("Read it all.")
        return reply_calls([("read_more", {"ref": "nope", "offset": 0})])

    scripted_model.script(reply_calls([("get_issue", {"issue_id": 9, "include": ["body", "comments", "labels"]})]))
    scripted_model.fallback = page_on
    settings = settings_for(tmp_path, redis_url, scripted_model.base_url)
    rt, agent, _ = build_agent(
        settings, budget=Budget(max_steps=30), context=ctxmgmt.ContextBudget(result_token_limit=limit)
    )
    whole = dispatch(
        v2_registry(),
        "get_issue",
        json.dumps({"issue_id": 9, "include": ["body", "comments", "labels"]}),
        ToolContext(corpus=open_corpus(settings.data_dir), stash=RedisStash(rt.conn, "elsewhere")),
    ).text
    run = agent.run(RunState(question="show issue 9 in full"))

    assert run.status == "done" and run.answer == "Read it all."
    first, *pages, unknown = outputs
    assert unknown.startswith("Error:") and "unknown or expired" in unknown
    assert all(count(out) <= limit for out in outputs)
    note = list(NOTE.finditer(first))[-1]
    assert note["label"] == "truncated" and len(pages) >= 3
    read = first[: note.start()]
    for page in pages:  # each page continues exactly where the text read so far stops
        assert not page.startswith("Error:"), page
        text = page.removesuffix(f"\n[end of {note['ref']}]")
        if text == page:
            page_note = list(NOTE.finditer(page))[-1]
            assert page_note["label"] == "more" and page_note["ref"] == note["ref"]  # not cut again
            text = page[: page_note.start()]
        assert whole.startswith(read + text)
        read += text
    assert read == whole and pages[-1].endswith(f"[end of {note['ref']}]")


def test_clearing_and_compaction_keep_pairing_on_every_request(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    plan = [
        reply_calls(
            [
                ("get_issue", {"issue_id": 3, "include": ["body", "comments"]}),
                ("search_docs", {"query": f"lease {n}", "k": 5}),
            ],
            reasoning=True,
        )
        for n in range(5)
    ] + [reply_text("done")]
    summaries: list[str] = []

    def next_turn(request: dict) -> object:
        if not request.get("tools"):  # the compaction's summary call
            summaries.append(request["instructions"])
            return reply_text(
                "Summary: read #3 twice; doc error-codes; ORB-1101.", usage=Usage(input_tokens=7_000, output_tokens=11)
            )
        return plan.pop(0)

    scripted_model.script(*[next_turn] * 20)
    # ~1,200 tokens over the instructions and the tools offered (1,800: workers/agent/toolset.py): compaction
    # must happen
    tight = ctxmgmt.ContextBudget(window=4_000, output_reserve=1_000, result_token_limit=1_500)
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url), context=tight)
    run = agent.run(RunState(question="dig into issue 3"))
    assert run.status == "done"
    for body in scripted_model.bodies():
        assert check_pairing(body["input"]) == []
    last = scripted_model.requests[-1].body["input"]
    assert last[0]["content"] == "dig into issue 3"  # the question survives compaction
    sizes = [len(json.dumps(body["input"])) for body in scripted_model.bodies() if body.get("tools")]
    assert max(sizes) < 4 * 4_000  # every request was brought within the small window
    assert summaries and "verbatim" in summaries[0]
    assert "Summary: read #3 twice" in json.dumps(last)
    step_input = sum(s.input_tokens for s in run.steps)
    assert run.usage.input_tokens == step_input + 7_000 * len(summaries)  # summary calls are billed to the run
    while scripted_model.pending:  # unused spare turns of this dynamic script
        scripted_model._take()


def test_transient_model_errors_are_retried_by_the_client(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(reply_error(429, retry_after=1), reply_error(500), reply_text("fine now"))
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url))
    run = agent.run(RunState(question="hello?"))
    assert run.answer == "fine now" and len(scripted_model.requests) == 3


def test_follow_up_sends_the_earlier_turns_first(tmp_path: Path, redis_url: str, scripted_model: ScriptedModel) -> None:
    from workers.runs.state import Turn

    scripted_model.script(reply_text("It is 256."))
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url))
    agent.run(
        RunState(question="and in KB?", history=[Turn(question="What is max_payload_kb?", answer="The payload limit.")])
    )
    sent = scripted_model.requests[0].body["input"]
    assert [(i["role"], i["content"]) for i in sent] == [
        ("user", "What is max_payload_kb?"),
        ("assistant", "The payload limit."),
        ("user", "and in KB?"),
    ]


def test_a_question_that_cannot_fit_the_window_stops_on_budget(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    """No model call is made with a request that is over the window even after clearing and compaction."""
    tiny = ctxmgmt.ContextBudget(window=6_000, output_reserve=1_000)  # instructions + tools are ~2,300
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url), context=tiny)
    run = agent.run(RunState(question="why? " * 3_000))
    assert run.stop_reason == "context_full" and run.partial and run.status == "partial"
    assert scripted_model.requests == []
    assert run.steps[-1].wrap_up and run.steps[-1].errors == 1
