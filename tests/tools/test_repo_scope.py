"""Tools over several repositories (issue 38): `repo` names one, the run's channel names one, or all are searched
with every source named; side-effect tools must name theirs; a repository not served is refused as a value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.tools_dataset import ISSUES, make_dataset, write_issues
from tools import dispatch, open_corpus, v2_registry
from tools.context import ToolContext
from tools.demo_tracker import demo_tracker
from tools.dispatch import validate
from tools.repo_scope import RepoScope, named, scoped

A, B = "acme/lib", "acme/cli"


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    a, b = make_dataset(tmp_path / "a"), make_dataset(tmp_path / "b")
    write_issues(b, [{"id": 500, "title": "Quokka flag ignored by the CLI", "body": "quokka", "state": "open"}])
    write_issues(a, ISSUES)
    return {A: a, B: b}


def _ctx(folders: dict[str, Path], repo: str | None, removed: tuple[str, ...] = ()) -> ToolContext:
    def open_repo(name: str):  # type: ignore[no-untyped-def]
        if name in removed:
            return f"{name} is no longer served: it was removed from the GitHub App's installation."
        return open_corpus(folders[name]), demo_tracker(folders[name])

    return ToolContext(corpus=open_corpus(folders[A]), scope=RepoScope((A, B), repo, open_repo), run_id="r1")


def _search(query: str, ctx: ToolContext, repo: str | None = None) -> str:
    args = {"query": query, "state": None, "limit": 5, "detail": "concise", "repo": repo}
    return dispatch(scoped(v2_registry(), (A, B)), "search_issues", json.dumps(args), ctx).text


def test_an_unmapped_channel_searches_every_repository_and_names_each_source(folders) -> None:  # type: ignore[no-untyped-def]
    ctx = _ctx(folders, None)
    both = _search("quokka cron twice", ctx)
    assert f"{B}#500" in both and f"{A}#1" in both
    assert both.startswith('Issues matching "quokka cron twice" in 2 repositories, best first:\n')
    assert all(line.startswith((f"{A}#", f"{B}#")) for line in both.splitlines()[1:])  # one list, each hit named


def test_a_mapped_channel_searches_its_repository_only(folders) -> None:  # type: ignore[no-untyped-def]
    only_b = _search("quokka cron twice", _ctx(folders, B))
    assert f"{B}#500" in only_b and A not in only_b
    named_a = _search("quokka cron twice", _ctx(folders, B), repo="lib")  # the short name, over the channel's
    assert f"{A}#1" in named_a and B not in named_a


def test_an_unknown_repository_is_an_error_value(folders) -> None:  # type: ignore[no-untyped-def]
    text = _search("cron", _ctx(folders, None), repo="acme/website")
    assert text.startswith("Error: acme/website is not a repository this install serves.")


def test_a_write_must_name_its_repository_and_lands_there(folders) -> None:  # type: ignore[no-untyped-def]
    registry = scoped(v2_registry(), (A, B))
    comment = {"issue_id": 500, "body": "Fixed in 2.0."}
    missing = validate(registry, "post_comment", json.dumps({**comment, "repo": None}), _ctx(folders, B))
    assert not hasattr(missing, "model_dump") and "Say which repository" in missing.text
    ctx = _ctx(folders, None)
    checked = validate(registry, "post_comment", json.dumps({**comment, "repo": B}), ctx)
    assert hasattr(checked, "model_dump")  # #500 exists in acme/cli (not in acme/lib)
    wrong = validate(registry, "post_comment", json.dumps({**comment, "repo": A}), ctx)
    assert not hasattr(wrong, "model_dump") and "#500" in wrong.text


def test_a_removed_repository_is_refused_for_writes_and_reads(folders) -> None:  # type: ignore[no-untyped-def]
    registry = scoped(v2_registry(), (A, B))
    ctx = _ctx(folders, None, removed=(B,))
    args = {"issue_id": 500, "body": "Fixed.", "repo": B}
    refused = validate(registry, "post_comment", json.dumps(args), ctx)
    assert "no longer served" in refused.text  # type: ignore[union-attr]
    assert f"{A}#1" in _search("cron twice", ctx)  # the others are still searched


def test_without_a_scope_a_tool_runs_as_before(folders) -> None:  # type: ignore[no-untyped-def]
    args = {"query": "cron twice", "state": None, "limit": 5, "detail": "concise"}
    plain = ToolContext(corpus=open_corpus(folders[A]))
    text = dispatch(scoped(v2_registry(), (A, B)), "search_issues", json.dumps(args), plain).text
    assert text == dispatch(v2_registry(), "search_issues", json.dumps(args), plain).text


def test_named_rewrites_issue_and_doc_references_only() -> None:
    assert (
        named(B, "#7 [open] x (duplicate of #3); see acme/x#9") == f"{B}#7 [open] x (duplicate of {B}#3); see acme/x#9"
    )
    assert named(B, "Doc sections:\n- retries § Backoff") == f"Doc sections:\n- {B}: retries § Backoff"
