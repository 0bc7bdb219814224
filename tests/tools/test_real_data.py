"""The tools over the real Orbit data (skipped until datasets/orbit/issues/issues.jsonl exists).

Runs on a copy in a temp dir, so the repository's data folder is never written by tests.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace

import pytest
import redis

from atlas.tokens import count
from tests.support.paging import read_all
from tests.support.paths import ORBIT
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.results import page_tokens
from workers.agent.stash import RedisStash

REAL = ORBIT
pytestmark = pytest.mark.skipif(
    not (REAL / "issues" / "issues.jsonl").is_file(), reason="Orbit issues not generated yet"
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    root = tmp_path_factory.mktemp("orbit")
    shutil.copytree(REAL / "docs", root / "docs")
    (root / "issues").mkdir()
    shutil.copy(REAL / "issues" / "issues.jsonl", root / "issues" / "issues.jsonl")
    return ToolContext(corpus=open_corpus(root), run_id="real-data")


def _issues() -> list[dict]:
    return [json.loads(line) for line in (REAL / "issues" / "issues.jsonl").read_text().splitlines() if line.strip()]


def _text(issue: dict) -> str:
    return " ".join(
        [
            issue["title"],
            issue.get("body") or "",
            " ".join(issue.get("labels") or []),
            *[c.get("body") or "" for c in issue.get("comments") or []],
        ]
    )


@pytest.mark.parametrize("token", ["ORB-1202", "lease_seconds", "3.1.0", "ORB-1402", "dst_policy"])
def test_fts_finds_exactly_the_issues_with_the_token(ctx: ToolContext, token: str) -> None:
    boundary = re.compile(r"(?<![\w.-])" + re.escape(token) + r"(?![\w-]|\.\w)", re.I)
    expected = {i["id"] for i in _issues() if boundary.search(_text(i))}
    found = {i.id for i in ctx.corpus.issues.search(token, None, 100_000)}
    assert found == expected


@pytest.mark.parametrize(
    "query", ["DST ran twice", "reconnect storm redis", "dashboard oidc", "ORB-1101 lease expired", "memory leak"]
)
def test_concise_search_is_cheap(ctx: ToolContext, query: str) -> None:
    out = dispatch(
        v2_registry(),
        "search_issues",
        json.dumps({"query": query, "state": None, "limit": 10, "detail": "concise"}),
        ctx,
    )
    assert out.ok and len(out.text.splitlines()) >= 4
    assert count(out.text) <= 300


def test_get_issue_of_the_longest_issue_stays_bounded(ctx: ToolContext) -> None:
    longest = max(_issues(), key=lambda i: len(_text(i)))
    out = dispatch(
        v2_registry(),
        "get_issue",
        json.dumps({"issue_id": longest["id"], "include": ["body", "comments", "labels"]}),
        ctx,
    )
    assert out.ok and len(out.text) < 2_000 + 8 * 700 + 1_000


def test_the_longest_issue_body_reads_to_its_last_line(ctx: ToolContext, redis_conn: redis.Redis) -> None:
    """#174's body is ~32k tokens of logs: get_issue shows its start, read_more every line after it."""
    longest = max(_issues(), key=lambda i: len(i.get("body") or ""))
    stashed = replace(ctx, stash=RedisStash(redis_conn, "run-longest", page_tokens(1_500)))
    out = dispatch(
        v2_registry(), "get_issue", json.dumps({"issue_id": longest["id"], "include": ["body", "comments"]}), stashed
    )
    body = out.text.split("body:\n", 1)[1].split("\ncomments (", 1)[0]
    assert read_all(stashed, body) == longest["body"].strip()
    shown = re.split(r"\n(?=\[\d+\] )", out.text.split("\ncomments (", 1)[1].split("\n", 1)[1])
    assert len(shown) == len(longest["comments"]) <= 8
    for text, comment in zip(shown, longest["comments"], strict=True):  # whole, or cut with a way to read on
        text = text.split(": ", 1)[1]
        assert text == comment["body"].strip() or read_all(stashed, text) == comment["body"].strip()


def test_every_doc_intro_and_section_is_readable(ctx: ToolContext) -> None:
    for page in ctx.corpus.docs.pages.values():
        for heading in [None, *page.headings()]:
            out = dispatch(
                v2_registry(), "get_doc_section", json.dumps({"doc_id": page.doc_id, "heading": heading}), ctx
            )
            assert out.ok, out.text
            assert len(out.text) <= 1_500 + 600
