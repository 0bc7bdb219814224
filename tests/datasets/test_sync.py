"""`atlas sync github` against the GitHub stand-in: what lands on disk, what requests it costs, faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.cli.main import main
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import exported, run_sync, settings_for
from tools import dispatch, open_corpus, v2_registry
from tools.context import ToolContext


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(260, comments=450)) as server:
        yield server
        assert server.violations == []


def test_full_sync_writes_issues_comments_labels_and_docs(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    report = run_sync(api, settings)
    assert report.complete and report.stopped is None
    repo = api.repo
    issues = {n: i for n, i in repo.issues.items() if "pull_request" not in i}
    rows = exported(settings)
    assert set(rows) == set(issues)  # pull requests are kept out of issue search
    some = next(iter(issues.values()))
    assert rows[some["number"]]["title"] == some["title"]
    assert rows[some["number"]]["url"] == f"https://github.com/acme/rocket/issues/{some['number']}"
    expected_comments = sum(1 for c in repo.comments.values() if int(c["issue_url"].rsplit("/", 1)[1]) in issues)
    assert sum(len(r["comments"]) for r in rows.values()) == expected_comments
    assert report.counts["labels"] == len(repo.labels)
    docs = settings.data_dir / "docs"
    assert sorted(p.stem for p in docs.glob("*.md")) == [
        "guides-deep-tuning-workers",
        "guides-setup",
        "index",
        "reference-config",
    ]
    titles = {p.stem: p.read_text().splitlines()[1] for p in docs.glob("*.md")}
    assert titles["index"] == "title: Rocket overview"  # front matter
    assert titles["guides-setup"] == "title: Setting up Rocket"  # first heading
    assert titles["guides-deep-tuning-workers"] == "title: tuning workers"  # file name


def test_requests_are_paginated_at_100_and_near_the_floor(api: GitHubAPI, tmp_path: Path) -> None:
    run_sync(api, settings_for(api, tmp_path))
    lists = [c for c in api.calls if c.path.endswith(("/issues", "/issues/comments", "/labels"))]
    assert lists and all(c.query.get("per_page") == "100" for c in lists)
    floor = -(-len(api.repo.issues) // 100) + -(-len(api.repo.comments) // 100) + 1
    assert (
        len([c for c in lists if c.status != 304]) == floor
    )  # plus one free 304 per listing: nothing changed meanwhile


def test_second_sync_with_nothing_changed_is_all_304(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    run_sync(api, settings)
    before, remaining = len(api.calls), api.rate_remaining
    report = run_sync(api, settings)
    second = api.calls[before:]
    assert second and all(c.status == 304 for c in second), [(c.path, c.status) for c in second]
    assert api.rate_remaining == remaining
    assert report.unchanged == ["issues", "comments"]


def test_incremental_sync_picks_up_edits_with_since(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    run_sync(api, settings)
    api.repo.edit_issue(3, title="Kestrel scheduler drops jobs")
    api.repo.add_comment(3, "a brand new comment about kestrel")
    before = len(api.calls)
    run_sync(api, settings)
    assert exported(settings)[3]["title"] == "Kestrel scheduler drops jobs"
    assert any("kestrel" in c["body"] for c in exported(settings)[3]["comments"])
    since = api.calls[before:]
    # issues, comments and labels; then conditional checks (free 304s) of the repository, the docs tree, the head
    # commit (code) and the releases
    assert len(since) <= 8 and len([c for c in since if c.status != 304]) <= 3
    found = dispatch(
        v2_registry(),
        "search_issues",
        json.dumps({"query": "kestrel", "state": None, "limit": 5, "detail": "concise"}),
        ToolContext(corpus=open_corpus(settings.data_dir)),
    )
    assert "#3" in found.text


def test_interrupted_sync_resumes_at_the_page_it_stopped(tmp_path: Path) -> None:
    with GitHubAPI(generate(520, comments=10)) as api:
        settings = settings_for(api, tmp_path)
        api.fail_next(r"GET /repos/acme/rocket/issues\?.*&page=3", 503)
        report = run_sync(api, settings)
        assert not report.complete and "unavailable" in (report.stopped or "")
        assert len(exported(settings)) >= 150  # the two pages synced are kept and served
        before = len(api.calls)
        report = run_sync(api, settings)
        assert report.complete
        resumed = [c for c in api.calls[before:] if c.path.endswith("/issues")]
        assert resumed[0].query.get("page") == "3"  # continues, does not start over
        assert len(exported(settings)) == sum(1 for i in api.repo.issues.values() if "pull_request" not in i)
        assert api.violations == []


def test_secondary_rate_limit_is_waited_out(api: GitHubAPI, tmp_path: Path) -> None:
    api.secondary.extend([3])
    sleeps: list[float] = []
    report = run_sync(api, settings_for(api, tmp_path), sleeps=sleeps)
    assert report.complete and sleeps == [3.0]
    assert any(c.status == 403 for c in api.calls)


def test_no_wait_stops_on_rate_limit_and_says_when_it_resets(api: GitHubAPI, tmp_path: Path) -> None:
    api.secondary.extend([30])
    report = run_sync(api, settings_for(api, tmp_path), wait=False)
    assert not report.complete and "resets in 30s" in (report.stopped or "")


def test_revoked_token_stops_and_says_how_to_fix(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    api.revoke_when(r"GET /repos/acme/rocket/issues/comments\?")
    report = run_sync(api, settings)
    assert not report.complete
    assert "expired or revoked" in (report.stopped or "") and "acme/rocket" in (report.stopped or "")
    assert len(exported(settings)) > 200  # the issues synced before it stay


def test_missing_contents_permission_is_named(tmp_path: Path) -> None:
    with GitHubAPI(generate(20, comments=5), permissions={"issues": "write", "metadata": "read"}) as api:
        report = run_sync(api, settings_for(api, tmp_path))
        assert not report.complete and "'Contents: read'" in (report.stopped or "")


def test_cli_sync_unknown_repository_is_one_line(
    api: GitHubAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {**api.env(), "ATLAS_HOME": str(tmp_path)}.items():
        monkeypatch.setenv(key, value)
    assert main(["sync", "github", "acme/nope"]) == 1
    err = capsys.readouterr().err
    assert "acme/nope" in err and "Traceback" not in err
    assert main(["sync", "github", "acme/rocket"]) == 0
    out = capsys.readouterr()
    assert "acme/rocket:" in out.out and "\r" not in out.err  # plain lines when not a terminal


def test_synced_docs_link_to_their_page_on_github(api: GitHubAPI, tmp_path: Path) -> None:
    from bot.slack.views.answer import sources_text
    from workers.messages.answer import sources_of

    settings = settings_for(api, tmp_path)
    run_sync(api, settings)
    page = open_corpus(settings.data_dir).docs.pages["guides-setup"]
    assert page.url == "https://github.com/acme/rocket/blob/main/docs/guides/setup.md"
    text = sources_text(
        sources_of(
            ["guides-setup", "#3"],
            docs_base_url=None,
            issues_base_url=settings.issues_base_url,
            urls={"guides-setup": page.url},
        )
    )
    assert f"<{page.url}|guides-setup>" in text and "<https://github.com/acme/rocket/issues/3|#3>" in text
