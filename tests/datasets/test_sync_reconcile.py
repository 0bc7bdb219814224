"""Issues deleted or transferred on GitHub while no webhook reached Atlas: the backstop sync reconciles the
numbers now and then and drops what GitHub answers 410 or 301 for (#22 item 11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.cli.main import main
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import cli_env, exported, run_sync, settings_for
from tools import dispatch, open_corpus, v2_registry
from tools.context import ToolContext


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(30, comments=20)) as server:
        yield server
        assert server.violations == []


def _found(settings: object, query: str) -> str:
    out = dispatch(
        v2_registry(),
        "search_issues",
        json.dumps({"query": query, "state": None, "limit": 5, "detail": "concise"}),
        ToolContext(corpus=open_corpus(settings.data_dir)),
    )  # type: ignore[attr-defined]
    return out.text


def test_every_nth_sync_drops_deleted_and_transferred_issues(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path, ATLAS_SYNC_RECONCILE_EVERY="2")
    api.repo.edit_issue(4, title="Zanzibar deleted later")
    api.repo.edit_issue(5, title="Quixotic transferred later")
    assert run_sync(api, settings).complete  # the first, full sync lists every number anyway
    assert "#4" in _found(settings, "zanzibar")
    api.repo.delete_issue(4)  # no webhook told Atlas
    api.repo.transfer_issue(5)
    assert run_sync(api, settings).complete
    assert {4, 5} <= set(exported(settings))  # 1 sync since the full one: not due yet
    before = len(api.calls)
    assert run_sync(api, settings).complete  # the 2nd since the last full listing: reconciles
    assert not {4, 5} & set(exported(settings))
    assert set(exported(settings)) == {n for n, i in api.repo.issues.items() if "pull_request" not in i}
    assert "#4" not in _found(settings, "zanzibar") and "#5" not in _found(settings, "quixotic")
    checked = {
        c.path.rsplit("/", 1)[1]
        for c in api.calls[before:]
        if "/issues/" in c.path and c.path.rsplit("/", 1)[1].isdigit()
    }
    assert checked == {"4", "5"}  # only the numbers missing from the listing are asked about
    assert not any(c.path.startswith("/repositories/") for c in api.calls)  # a 301 is not followed


def test_reconcile_on_demand_from_the_command(
    api: GitHubAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cli_env(monkeypatch, api, tmp_path)
    assert main(["sync", "github", "acme/rocket"]) == 0
    api.repo.delete_issue(7)  # not due by itself for another 24 syncs (the first test shows one not due)
    settings = settings_for(api, tmp_path)
    assert main(["sync", "github", "acme/rocket", "--reconcile"]) == 0
    assert 7 not in exported(settings)
    assert "1 deleted or transferred" in capsys.readouterr().out
