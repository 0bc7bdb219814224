"""search_issues and get_issue: compact outputs, detail levels, truncation, missing ids."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
import redis

from atlas.tokens import count
from tests.support.paging import NOTE, page_through, read_all
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.results import page_tokens
from workers.agent.stash import RedisStash


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
    assert (
        out.text
        == "Error: Invalid arguments for search_issues: limit must be <= 20.\nHint: Fix the field and call again."
    )


def test_get_issue_header_only(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=2, include=[])
    assert out.text.splitlines() == [
        "#2 Jobs run twice after the autumn DST switch",
        "state: closed | author: reporter | created: 2025-10-20 | closed: 2025-10-25 | duplicate of: #1 | comments: 0",
    ]


def test_get_issue_long_parts_are_cut(ctx: ToolContext) -> None:
    """Without a stash (`atlas tool`) a cut says how much is left out and names no ref."""
    out = call(ctx, "get_issue", issue_id=9, include=["body", "comments", "labels"])
    assert out.ok and "read_more" not in out.text
    assert re.search(r"\n\[body truncated: [\d,]+ more tokens\]\n", out.text)
    assert len(re.findall(r"\[comment truncated: [\d,]+ more tokens\]", out.text)) == 3
    assert "labels: comp:workers, type:bug, version:3.0.2" in out.text


def test_get_issue_many_comments_keeps_first_and_last(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=3, include=["comments"])
    numbers = re.findall(r"^\[(\d+)\] ", out.text, re.M)
    assert numbers == ["1", "2", "3", "4", "9", "10", "11", "12"]
    assert "[4 comments left out: 5-8 of 12]" in out.text


def test_every_part_of_a_long_issue_is_reachable_through_read_more(ctx: ToolContext, redis_conn: redis.Redis) -> None:
    """The cut body, each cut comment and the comments left out read to their last character."""
    stashed = replace(ctx, stash=RedisStash(redis_conn, "run-issue", page_tokens(300)))
    store = ctx.corpus.issues
    out = call(stashed, "get_issue", issue_id=9, include=["body", "comments"]).text
    body = out.split("body:\n", 1)[1].split("\ncomments (3):", 1)[0]
    assert "[body truncated: " in body and read_all(stashed, body) == store.get(9).body.strip()
    comments = re.split(r"\n(?=\[\d+\] user)", out.split("\ncomments (3):\n", 1)[1])
    assert len(comments) == 3
    for line, comment in zip(comments, store.comments(9), strict=True):
        assert "[comment truncated: " in line
        assert read_all(stashed, line.split(": ", 1)[1]) == comment.body.strip()

    thread = call(stashed, "get_issue", issue_id=3, include=["comments"]).text
    note = next(n for n in NOTE.finditer(thread) if n["label"].startswith("4 comments left out: 5-8 of 12"))
    middle = "".join(page_through(stashed, note["ref"], int(note["offset"]), 10_000))
    assert re.findall(r"^\[(\d+)\] ", middle, re.M) == ["5", "6", "7", "8"]
    for comment in store.comments(3)[4:8]:
        assert comment.body.strip() in middle


def test_missing_issue(ctx: ToolContext) -> None:
    out = call(ctx, "get_issue", issue_id=0, include=["body"])
    assert out.text == (
        "Error: No issue #0.\nHint: Issue ids run from 1 to 9 (9 issues). "
        "ORB-xxxx codes are documented: call search_docs."
    )
