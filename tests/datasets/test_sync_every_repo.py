"""`atlas sync github` with no argument syncs every configured repository, each into its own folder (issue 38)."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.cli.main import main
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import cli_env
from tests.support.org_harness import second_repo


def test_no_argument_syncs_every_repository_and_a_named_one_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with GitHubAPI(generate(8, comments=4)) as api:
        cli = second_repo(6, 3)
        api.others[cli.full_name] = cli
        cli_env(monkeypatch, api, tmp_path)
        monkeypatch.delenv("ATLAS_GITHUB_REPO")
        monkeypatch.setenv("ATLAS_GITHUB_REPOS", f"acme/rocket,{cli.full_name}")
        assert main(["sync", "github"]) == 0
        out = capsys.readouterr().out
        assert "acme/rocket: " in out and "acme/cli: " in out
        for name in ("rocket", "cli"):
            assert (tmp_path / "github" / "acme" / name / "issues" / "issues.jsonl").is_file()
        before = len(api.requests(path="/repos/acme/rocket/"))
        assert main(["sync", "github", "acme/cli"]) == 0
        assert len(api.requests(path="/repos/acme/rocket/")) == before  # the one named, alone
        monkeypatch.delenv("ATLAS_GITHUB_REPOS")
        assert main(["sync", "github"]) == 2
        assert "ATLAS_GITHUB_REPOS" in capsys.readouterr().err
