"""`atlas sync github` brings the paths each pull request changed, only for pull requests new or updated (issue 27).

Against the GitHub stand-in's pulls/list-files route, whose replies are built from and checked against
GitHub's `diff-entry` schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.standins.github_api import TOKEN, GitHubAPI
from tests.standins.github_pulls import set_files
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for
from tools import ToolContext, dispatch, open_corpus, v2_registry


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(3, comments=1)) as server:
        yield server
        assert server.violations == []


def _asked(api: GitHubAPI) -> list[str]:
    return [c.path.split("/")[-2] for c in api.requests("GET", r"/pulls/\d+/files$") if c.status == 200]


def _pulls(settings: object) -> dict[int, dict[str, object]]:
    path = settings.data_dir / "knowledge" / "pulls.jsonl"  # type: ignore[attr-defined]
    return {r["number"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_a_question_naming_a_file_finds_the_pull_request_that_changed_it(api: GitHubAPI, tmp_path: Path) -> None:
    fix = api.repo.add_issue("Back off heartbeats under load", "Heartbeats now back off.", pull=True, state="closed")
    set_files(
        api.repo,
        fix["number"],
        ["src/rocket/lease.py", "docs/leases.md"],
        renamed_from={"src/rocket/lease.py": "src/rocket/lease_old.py"},
    )
    other = api.repo.add_issue(
        "Tidy the pull request template",
        "Which pull request changed what: a request to tidy the pull "
        "request template of rocket, changed wording in src and rocket docs.",
        pull=True,
        state="closed",
    )
    set_files(api.repo, other["number"], ["README.md"])
    settings = settings_for(api, tmp_path)
    report = run_sync(api, settings)
    assert report.complete and report.skipped == []
    assert _pulls(settings)[fix["number"]]["files"] == [
        "src/rocket/lease_old.py",
        "src/rocket/lease.py",
        "docs/leases.md",
    ]
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home))
    out = dispatch(
        v2_registry(),
        "search_history",
        json.dumps({"query": "which PR changed src/rocket/lease.py?", "kind": "pull_request", "limit": 2}),
        ctx,
    ).text
    first = out.splitlines()[1]
    assert first.startswith(f"- PR #{fix['number']} [merged ") and "changed src/rocket/lease.py" in out
    # all kinds, and a PR whose description is full of the question's other words: the changed path still wins
    noisy = dispatch(
        v2_registry(),
        "search_history",
        json.dumps({"query": "which pull request changed src/rocket/lease.py?", "kind": None, "limit": 3}),
        ctx,
    ).text
    assert noisy.splitlines()[1].startswith(f"- PR #{fix['number']} [merged "), noisy


def test_only_pull_requests_new_or_updated_since_are_asked_and_paginated_files_are_all_read(
    api: GitHubAPI, tmp_path: Path
) -> None:
    many = api.repo.add_issue("Rename every module", "Big one.", pull=True)
    set_files(api.repo, many["number"], [f"src/rocket/m{i}.py" for i in range(130)])  # two pages of 100
    quiet = api.repo.add_issue("Small fix", "One line.", pull=True)
    set_files(api.repo, quiet["number"], ["src/rocket/small.py"])
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings, build_index=False).complete
    assert len(_pulls(settings)[many["number"]]["files"]) == 130
    asked = _asked(api)
    assert asked.count(str(many["number"])) == 2 and asked.count(str(quiet["number"])) == 1
    assert (
        run_sync(api, settings, build_index=False).pull_files == 0 and _asked(api) == asked
    )  # nothing new: none asked
    set_files(api.repo, quiet["number"], ["src/rocket/small.py", "src/rocket/extra.py"])  # a push to its branch
    assert run_sync(api, settings, build_index=False).pull_files == 1
    assert _asked(api) == asked + [str(quiet["number"])]
    assert _pulls(settings)[quiet["number"]]["files"] == ["src/rocket/small.py", "src/rocket/extra.py"]
    api.repo.add_comment(quiet["number"], "LGTM")  # updated, files unchanged: a free 304
    assert run_sync(api, settings, build_index=False).pull_files == 1
    assert api.requests("GET", rf"/pulls/{quiet['number']}/files$")[-1].status == 304


def test_a_token_without_pull_requests_read_leaves_the_paths_out_and_syncs_the_rest(
    api: GitHubAPI, tmp_path: Path
) -> None:
    pull = api.repo.add_issue("A change", "Body.", pull=True)
    set_files(api.repo, pull["number"], ["src/rocket/a.py"])
    api.tokens[TOKEN].pop("pull_requests")
    settings = settings_for(api, tmp_path)
    report = run_sync(api, settings, build_index=False)
    assert report.complete and report.pull_files is None and "Pull requests: read" in report.skipped[0]
    assert _pulls(settings)[pull["number"]]["files"] == []
