"""A search over every repository runs each repository's part in its lane (tools/repo_lanes.py), and the result is
exactly what the parts run one after the other give: one list of the best matches of every repository, in which
each repository's hits are the start of its own result."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tools_dataset import ISSUES, make_dataset, write_issues
from tools import dispatch, open_corpus, repo_lanes, v2_registry
from tools.context import RepoScope, ToolContext
from tools.repo_scope import named, scoped

REPOS = tuple(f"acme/r{i}" for i in range(5))
QUERIES = ("cron twice", "lease expired", "redis failover reconnect", "quokka", "retries exhausted ORB-1201")


@pytest.fixture
def three_lanes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Three lanes whatever the machine's cores (the path a 1-core runner would skip)."""
    kept = list(repo_lanes._lanes)
    repo_lanes._lanes.clear()
    monkeypatch.setattr(repo_lanes, "lane_count", lambda: 3)
    yield
    for lane in repo_lanes._lanes:
        lane.shutdown()
    repo_lanes._lanes[:] = kept


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for i, repo in enumerate(REPOS):
        folder = make_dataset(tmp_path / f"r{i}")
        extra = [{"id": 500 + i, "title": f"Quokka flag {i} ignored", "body": "quokka cron", "state": "open"}]
        write_issues(folder, ISSUES[i:] + extra)  # each repository holds different issues
        out[repo] = folder
    return out


def _args(query: str, **repo: str | None) -> str:
    return json.dumps({"query": query, "state": None, "limit": 3, "detail": "concise", **repo})


def test_every_repository_searched_in_lanes_gives_the_parts_one_after_the_other(
    folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch, three_lanes: None
) -> None:
    scope = RepoScope(REPOS, None, lambda repo: (open_corpus(folders[repo]), None))
    ctx = ToolContext(corpus=open_corpus(folders[REPOS[0]]), scope=scope)
    registry = scoped(v2_registry(), REPOS)
    in_lanes = {q: dispatch(registry, "search_issues", _args(q, repo=None), ctx).text for q in QUERIES}
    assert len(repo_lanes._lanes) == 3
    monkeypatch.setattr(repo_lanes, "_started", list)  # no lanes: every part in this thread, one after the other
    for query in QUERIES:
        assert dispatch(registry, "search_issues", _args(query, repo=None), ctx).text == in_lanes[query]
        hits = in_lanes[query].splitlines()[1:]
        assert 0 < len(hits) <= 3
        for repo in REPOS:
            alone = dispatch(v2_registry(), "search_issues", _args(query), _one(folders[repo])).text
            mine = [h for h in hits if h.startswith(f"{repo}#")]
            assert mine == named(repo, alone).splitlines()[1 : 1 + len(mine)]  # its own order, from its best


def _one(folder: Path) -> ToolContext:
    return ToolContext(corpus=open_corpus(folder))


def test_each_item_keeps_its_lane_and_a_failure_is_raised_to_the_caller(three_lanes: None) -> None:
    seen: dict[str, set[int]] = {}

    def record(item: str) -> str:
        seen.setdefault(item, set()).add(threading.get_ident())
        return item.upper()

    for _ in range(3):
        assert repo_lanes.each(list(REPOS), record) == [r.upper() for r in REPOS]
    assert all(len(threads) == 1 for threads in seen.values())  # a repository is read by one lane
    assert len({next(iter(t)) for t in seen.values()}) == 3

    def fail(item: str) -> str:
        if item == REPOS[3]:
            raise ValueError("boom")
        return item

    with pytest.raises(ValueError, match="boom"):
        repo_lanes.each(list(REPOS), fail)
