"""What `atlas ask` prints for finished and paused runs."""

from __future__ import annotations

import pytest

from atlas.cli.ask import render, result_json
from bot.plain.views import answer, approval
from workers.messages.answer import answer_of
from workers.runs.state import PendingCall, RunState, StepRecord, Usage


def test_a_finished_run_shows_answer_sources_and_footer() -> None:
    run = RunState(
        question="q",
        status="partial",
        answer="Half of it.",
        stop_reason="max_steps",
        partial=True,
        sources=["error-codes", "#12"],
        steps=[StepRecord(index=1)],
        usage=Usage(input_tokens=1200, output_tokens=34),
        cost_usd=0.00014,
    )
    text = render(run)
    assert text.startswith("Half of it.")
    assert "Sources: error-codes, #12" in text
    assert "-- 1 step, 1,234 tokens, $0.0001, stop: max_steps (partial)" in text
    two = run.model_copy(update={"steps": [StepRecord(index=1), StepRecord(index=2)]})
    assert "-- 2 steps, " in render(two)
    assert result_json(run)["usage"]["total_tokens"] == 1234


def test_a_paused_run_lists_the_actions_waiting_for_approval() -> None:
    run = RunState(
        question="label it",
        status="awaiting_approval",
        pending=[
            PendingCall(
                pending_id="p1",
                call_id="c1",
                name="add_labels",
                arguments='{"issue_id": 3, "labels": ["needs-repro"]}',
                step=1,
            )
        ],
    )
    text = render(run)
    assert "1 action(s)" in text and 'add_labels({"issue_id": 3, "labels": ["needs-repro"]})' in text
    assert "(no answer)" not in text


def test_what_ask_prints_comes_from_the_plain_text_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """`atlas ask` renders through bot/plain/views/: a change there is what the command prints."""
    run = RunState(question="q", status="done", answer="Yes.", stop_reason="done", steps=[StepRecord(index=1)])
    assert render(run).startswith(answer.answer_text(answer_of(run, docs_base_url=None, issues_base_url=None)))
    monkeypatch.setattr(answer, "answer_text", lambda value: f"plain view of {value.run_id}")
    monkeypatch.setattr(approval, "paused_text", lambda cards: f"plain view of {len(cards)} card(s)")
    assert render(run) == f"plain view of {run.id}"
    paused = run.model_copy(
        update={
            "status": "awaiting_approval",
            "pending": [PendingCall(pending_id="p", call_id="c", name="add_labels", arguments="{}", step=1)],
        }
    )
    assert render(paused) == "plain view of 1 card(s)"
