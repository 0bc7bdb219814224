"""Bad tool arguments are errors the model can act on: numbers SQLite cannot hold, and strict types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.lookups import Lookup, Lookups
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, ToolOutput, dispatch, open_corpus, v2_registry, validate
from tools.demo_tracker import demo_tracker

HUGE = 2**63  # one above SQLite's INTEGER


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(corpus=open_corpus(make_dataset(tmp_path / "data")), run_id="run1", call_id="call_a")


@pytest.mark.parametrize("number", [HUGE, 10**30])
def test_get_issue_with_a_number_sqlite_cannot_hold_is_no_such_issue(ctx: ToolContext, number: int) -> None:
    out = dispatch(
        v2_registry(), "get_issue", json.dumps({"issue_id": number, "include": ["body", "comments", "labels"]}), ctx
    )
    assert not out.ok
    assert out.text.startswith(f"Error: No issue #{number}.") and "Issue ids run from" in out.text


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("add_labels", {"issue_id": HUGE, "labels": ["bug"]}),
        ("post_comment", {"issue_id": HUGE, "body": "hello"}),
        ("close_issue", {"issue_id": HUGE, "reason": "completed", "duplicate_of": None}),
        ("close_issue", {"issue_id": 3, "reason": "duplicate", "duplicate_of": HUGE}),
    ],
)
def test_side_effect_checks_with_a_huge_number_say_no_such_issue(ctx: ToolContext, name: str, arguments: dict) -> None:
    checked = validate(v2_registry(), name, json.dumps(arguments), ctx)
    assert isinstance(checked, ToolOutput) and not checked.ok
    assert str(HUGE) in checked.text and "unexpectedly" not in checked.text


def test_the_tracker_has_no_issue_beyond_sqlite_range(ctx: ToolContext) -> None:
    assert demo_tracker(ctx.corpus.data_dir).issue(HUGE) is None


def test_the_slash_command_lookup_with_a_huge_number_is_no_such_issue(ctx: ToolContext) -> None:
    result = Lookups(ctx.corpus.data_dir).run(Lookup("issue", str(HUGE)))
    assert not result.ok and f"No issue #{HUGE}" in result.text


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"issue_id": True, "include": []}, "issue_id"),
        ({"issue_id": "1", "include": []}, "issue_id"),
        ({"issue_id": 1.0, "include": []}, "issue_id"),
    ],
)
def test_strict_schemas_refuse_what_they_do_not_declare(ctx: ToolContext, arguments: dict, field: str) -> None:
    out = dispatch(v2_registry(), "get_issue", json.dumps(arguments), ctx)
    assert not out.ok and out.text.startswith("Error: Invalid arguments for get_issue") and field in out.text
    assert "#1 " not in out.text


def test_strict_limit_refuses_a_boolean(ctx: ToolContext) -> None:
    out = dispatch(
        v2_registry(),
        "search_issues",
        json.dumps({"query": "redis", "state": None, "limit": True, "detail": "concise"}),
        ctx,
    )
    assert not out.ok and "limit" in out.text


def test_strict_schemas_still_take_what_they_declare(ctx: ToolContext) -> None:
    assert dispatch(v2_registry(), "get_issue", json.dumps({"issue_id": 1, "include": ["labels"]}), ctx).ok
    assert dispatch(
        v2_registry(),
        "search_issues",
        json.dumps({"query": "redis", "state": None, "limit": 5, "detail": "concise"}),
        ctx,
    ).ok
