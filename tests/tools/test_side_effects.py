"""Side-effect tools: validated (shape and tracker data) before any card; never run by plain dispatch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from datasets import tracker_journal
from tests.support.approvals_data import LABELS, make_data
from tests.support.strict_schema import check_definition
from tools import open_corpus, v2_registry
from tools.context import ToolContext
from tools.dispatch import ToolOutput, dispatch, execute, validate

SIDE_EFFECTS = ("add_labels", "post_comment", "close_issue", "create_issue")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(corpus=open_corpus(make_data(tmp_path / "data")), run_id="run1", call_id="call_a")


def checked(ctx: ToolContext, name: str, **arguments: object) -> BaseModel | ToolOutput:
    return validate(v2_registry(), name, json.dumps(arguments), ctx)


def journal(ctx: ToolContext) -> list[tracker_journal.Entry]:
    return tracker_journal.entries(tracker_journal.journal_path(ctx.corpus.data_dir))


def test_registered_as_side_effects_with_strict_definitions() -> None:
    registry = v2_registry()
    assert all(registry.get(name).side_effect for name in SIDE_EFFECTS)
    assert not any(registry.get(name).side_effect for name in registry.names() if name not in SIDE_EFFECTS)
    for definition in registry.definitions():
        assert check_definition(definition) == [], definition["name"]


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        (
            "add_labels",
            {"issue_id": 1, "labels": ["bug", "made-up", "urgent!"]},
            "These labels do not exist: made-up, urgent!",
        ),
        ("add_labels", {"issue_id": 999, "labels": ["bug"]}, "No issue #999"),
        ("add_labels", {"issue_id": 1, "labels": []}, "labels"),
        ("post_comment", {"issue_id": 1, "body": "   "}, "the comment is empty"),
        ("post_comment", {"issue_id": 1, "body": "x" * 4001}, "at most 4000"),
        ("post_comment", {"issue_id": 404, "body": "hi"}, "No issue #404"),
        ("close_issue", {"issue_id": 2, "reason": "duplicate", "duplicate_of": None}, "needs duplicate_of"),
        (
            "close_issue",
            {"issue_id": 2, "reason": "duplicate", "duplicate_of": 777},
            "duplicate_of #777 does not exist",
        ),
        ("close_issue", {"issue_id": 2, "reason": "completed", "duplicate_of": 1}, "only for reason duplicate"),
        ("close_issue", {"issue_id": 2, "reason": "wontfix", "duplicate_of": None}, "reason must be one of"),
        ("close_issue", {"issue_id": 4, "reason": "completed", "duplicate_of": None}, "already closed"),
    ],
)
def test_invalid_calls_are_errors_before_any_card(ctx: ToolContext, name: str, arguments: dict, says: str) -> None:
    result = checked(ctx, name, **arguments)
    assert isinstance(result, ToolOutput) and not result.ok
    assert says in result.text and result.text.startswith("Error:")


def test_a_made_up_label_lists_the_real_ones(ctx: ToolContext) -> None:
    result = checked(ctx, "add_labels", issue_id=1, labels=["critical"])
    assert isinstance(result, ToolOutput)
    assert f"Use only existing labels: {', '.join(LABELS)}." in result.text


def test_validation_needs_the_context_for_data_checks(ctx: ToolContext) -> None:
    result = validate(v2_registry(), "add_labels", json.dumps({"issue_id": 1, "labels": ["made-up"]}))
    assert isinstance(result, ToolOutput) and not result.ok  # no context: refused, not waved through


def test_dispatch_refuses_side_effect_tools(ctx: ToolContext) -> None:
    result = dispatch(
        v2_registry(), "close_issue", json.dumps({"issue_id": 1, "reason": "completed", "duplicate_of": None}), ctx
    )
    assert not result.ok and "needs a maintainer's approval" in result.text
    assert journal(ctx) == []
    assert ctx.corpus.issues.get(1).state == "open"


def test_execute_writes_through_the_tracker_with_the_call_key(ctx: ToolContext) -> None:
    registry = v2_registry()
    args = checked(ctx, "close_issue", issue_id=2, reason="duplicate", duplicate_of=1)
    assert isinstance(args, BaseModel)
    out = execute(registry, "close_issue", args, ctx)
    assert out.ok and out.text == 'Closed #2 "Lease expiry after GC pause" as a duplicate of #1.'
    labels = execute(registry, "add_labels", checked(ctx, "add_labels", issue_id=3, labels=["bug", "bug"]), ctx)
    assert labels.text == 'Labeled #3 "Docs: cron syntax example is wrong" with bug. Its labels now: bug, docs.'
    assert [(e.kind, e.key) for e in journal(ctx)] == [("close", "run1.call_a"), ("add_labels", "run1.call_a")]
    assert ctx.corpus.issues.get(2).duplicate_of == 1


def test_execute_reports_a_tracker_that_changed_since_approval(ctx: ToolContext) -> None:
    registry = v2_registry()
    args = checked(ctx, "close_issue", issue_id=3, reason="completed", duplicate_of=None)
    assert execute(registry, "close_issue", args, ctx).ok
    again = execute(registry, "close_issue", args, ctx)
    assert not again.ok and "already closed" in again.text
