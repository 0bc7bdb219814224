"""What `atlas sync github` accepts as OWNER/REPO, and what it says when a sync fails before anything was synced."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.cli.main import main
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import cli_env


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(5, comments=2)) as server:
        yield server


@pytest.mark.parametrize(
    "repo",
    [
        "../x",
        "acme/..",
        "acme/.",
        "acme-/rocket",
        "ac--me/rocket",
        "a" * 40 + "/rocket",
        "acme/" + "r" * 101,
        "acme/ro cket",
        "acme/rocket/extra",
        "acme_x/rocket",
        "acme",
    ],
)
def test_a_name_github_would_refuse_is_one_line_exit_2_before_any_path_or_request(
    repo: str, api: GitHubAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home" / ".atlas"
    cli_env(monkeypatch, api, home)
    assert main(["sync", "github", repo]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and repo in err and "OWNER/REPO" in err
    assert api.calls == []
    assert not home.exists() and not (tmp_path / "home" / "x").exists()


@pytest.mark.parametrize("repo", ["a/b", "a-b/c.d_e-f", "A1/" + "r" * 100, "o" * 39 + "/.github", "acme/..x"])
def test_names_github_allows_are_accepted(repo: str) -> None:
    from atlas.settings import Settings

    settings = Settings.from_env({"ATLAS_GITHUB_REPO": repo, "GITHUB_TOKEN": "t", "ATLAS_HOME": "/nonexistent"})
    assert settings.github is not None and settings.github.repo == repo


def test_an_owner_starting_with_a_hyphen_is_refused_by_the_settings() -> None:
    from atlas.errors import ConfigError
    from atlas.settings import Settings

    with pytest.raises(
        ConfigError, match="OWNER/REPO"
    ):  # `atlas sync github -acme/x` is already an unknown option to argparse
        Settings.from_env({"ATLAS_GITHUB_REPO": "-acme/rocket", "GITHUB_TOKEN": "t"})


def test_a_sync_that_got_nothing_says_in_one_line_what_failed_and_leaves_nothing_to_serve(
    api: GitHubAPI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    cli_env(monkeypatch, api, tmp_path)
    api.revoke()
    assert main(["sync", "github", "acme/rocket"]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no summary claiming a folder
    assert len(err.strip().splitlines()) == 1, err
    assert "expired or revoked" in err and "kept and served" not in err
    assert [r for r in caplog.records if r.levelname == "WARNING"] == []  # the one line is all the command says
    assert not (tmp_path / "github" / "acme" / "rocket" / "issues" / "issues.jsonl").exists()


def test_a_bad_app_private_key_is_named_as_such_and_no_request_is_made(
    api: GitHubAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cli_env(monkeypatch, api, tmp_path)
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("GITHUB_APP_ID", "77")
    monkeypatch.setenv(
        "GITHUB_APP_PRIVATE_KEY", "-----BEGIN RSA PRIVATE KEY-----\nnot really\n-----END RSA PRIVATE KEY-----\n"
    )
    assert main(["sync", "github", "acme/rocket"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "GITHUB_APP_PRIVATE_KEY" in err and "could not be reached" not in err and "not really" not in err
    assert api.calls == []
