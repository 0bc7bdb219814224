"""search_issues and get_issue: compact outputs, detail levels, truncation, missing ids."""

from __future__ import annotations

import json
import re

import pytest

from atlas.tokens import count
from tests.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    return ToolContext(corpus=open_corpus(make_dataset(tmp_path_factory.mktemp("data"))))


def call(ctx: ToolContext, name: str, **args: object):
    return dispatch(v2_registry(), name, json.dumps(args), ctx)


def test_concise_is_one_line_per_issue(ctx: ToolContext) -> None:
    out = call(ctx, "search_issues", query="DST ran twice", state=None, limit=10, detail="concise")
    assert out.ok
    assert out.text.splitlines() == [
        'Issues matching "DST ran twice", best first:',
        "#1 [closed] Cron job ran twice on DST change",
        "#2 [closed] Jobs run twice after the autumn DST switch (duplicate of #1)",
    ]


def test_detailed_adds_labels_and_body_start(ctx: ToolContext) -> None:
    concise = call(ctx, "search_issues", query="memory leak msgpack", state=None, limit=3, detail="concise")
    detailed = call(ctx, "search_issues", query="memory leak msgpack", state=None, limit=3, detail="detailed")
    assert "labels: comp:workers, type:bug, version:3.0.2" in detailed.text
    body_line = detailed.text.splitlines()[3]
    assert body_line.startswith("  RSS grows") and len(body_line) < 700
    assert count(detailed.text) > count(concise.text)


def test_state_filter_and_limit(ctx: ToolContext) -> None:
    out = call(ctx, "search_issues", query="ORB", state="open", limit=2, detail="concise")
    lines = out.text.splitlines()
    assert lines[0].startswith("Issues (open) matching") and len(lines) == 3
    assert all("[open]" in line for line in lines[1:])


def test_no_match_and_no_words(ctx: ToolContext) -> None:
    out = call(ctx, "search_issues", query="zzyzx", state="closed", limit=5, detail="concise")
    assert out.ok and "No issues (closed) match" in out.text and "state null" in out.text
    out = call(ctx, "search_issues", query="?!", state=None, limit=5, detail="concise")
    assert not out.ok and "no searchable words" in out.text


def test_limit_bound(ctx: ToolContext) -> None:
    out = call(ctx, "search_issues", query="DST", state="open", limit=50, detail="concise")
    assert out.text == "Error: Invalid arguments for search_issues: limit must be <= 20.\nHint: Fix the field and call again."


def test_get_issue_header_only(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=2, include=[])
    assert out.text.splitlines() == [
        "#2 Jobs run twice after the autumn DST switch",
        "state: closed | author: reporter | created: 2025-10-20 | closed: 2025-10-25 | duplicate of: #1 | comments: 0",
    ]


def test_get_issue_long_parts_are_cut(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=9, include=["body", "comments", "labels"])
    assert out.ok
    assert "[body cut: 2,000 of " in out.text
    assert out.text.count("[comment cut: 600 of ") == 3
    assert "labels: comp:workers, type:bug, version:3.0.2" in out.text


def test_get_issue_many_comments_keeps_first_and_last(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=3, include=["comments"])
    numbers = re.findall(r"^\[(\d+)\] ", out.text, re.M)
    assert numbers == ["1", "2", "3", "4", "9", "10", "11", "12"]
    assert "[4 comments left out: 5-8 of 12]" in out.text


def test_missing_issue(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=0, include=["body"])
    assert out.text == ("Error: No issue #0.\nHint: Issue ids run from 1 to 9 (9 issues). "
                        "ORB-xxxx codes are documented: call search_docs.")
