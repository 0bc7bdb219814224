"""The organization block (issue 38): repositories served, channels that know theirs, triage channels."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.settings import ConfigError, Settings


def test_github_repos_lists_every_repository_and_the_first_is_the_primary(tmp_path: Path) -> None:
    s = Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib, acme/cli", "ATLAS_HOME": str(tmp_path)})
    assert s.org.repos == ("acme/lib", "acme/cli")
    assert s.github is not None and s.github.repo == "acme/lib"
    assert s.data_dir == tmp_path / "github" / "acme" / "lib"
    assert s.org.many


def test_github_repo_alone_is_a_list_of_one_and_answers_as_before(tmp_path: Path) -> None:
    one = Settings.from_env({"ATLAS_GITHUB_REPO": "acme/lib", "ATLAS_HOME": str(tmp_path)})
    assert one.org.repos == ("acme/lib",) and not one.org.many
    listed = Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib", "ATLAS_HOME": str(tmp_path)})
    assert listed.fingerprint == one.fingerprint  # a list of one is the same install
    assert Settings.from_env({}).org.repos == ()  # the Orbit demo


def test_github_repo_beside_the_list_stays_first() -> None:
    s = Settings.from_env({"ATLAS_GITHUB_REPO": "acme/docs", "ATLAS_GITHUB_REPOS": "acme/lib,acme/cli"})
    assert s.org.repos == ("acme/docs", "acme/lib", "acme/cli")


def test_a_bad_repository_name_in_the_list_is_refused_with_the_variable() -> None:
    with pytest.raises(ConfigError, match="ATLAS_GITHUB_REPOS"):
        Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib,not-a-repo"})


def test_a_channel_knows_its_repository_and_others_know_none() -> None:
    s = Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib,acme/cli", "ATLAS_CHANNEL_REPOS": "C1=acme/cli,C2=lib"})
    assert s.org.repo_for_channel("C1") == "acme/cli"
    assert s.org.repo_for_channel("C2") == "acme/lib"  # the short name of a configured repository
    assert s.org.repo_for_channel("C9") is None
    assert s.org.repo_for_channel(None) is None


def test_a_channel_mapped_to_a_repository_not_served_is_refused() -> None:
    with pytest.raises(ConfigError, match="acme/web.*not in ATLAS_GITHUB_REPOS"):
        Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib", "ATLAS_CHANNEL_REPOS": "C1=acme/web"})
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib", "ATLAS_CHANNEL_REPOS": "C1"})


def test_each_repository_has_its_triage_channel_and_the_default_stays() -> None:
    s = Settings.from_env(
        {
            "ATLAS_GITHUB_REPOS": "acme/lib,acme/cli",
            "ATLAS_TRIAGE_CHANNELS": "acme/cli=C790",
            "ATLAS_TRIAGE_CHANNEL": "C789",
        }
    )
    assert s.org.triage_channel("acme/cli", s.triage.channel) == "C790"
    assert s.org.triage_channel("ACME/CLI", s.triage.channel) == "C790"
    assert s.org.triage_channel("acme/lib", s.triage.channel) == "C789"


def test_for_repo_serves_one_repository_with_its_folder_and_links(tmp_path: Path) -> None:
    s = Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib,acme/cli", "ATLAS_HOME": str(tmp_path)})
    cli = s.for_repo("acme/cli")
    assert cli.github is not None and cli.github.repo == "acme/cli"
    assert cli.data_dir == tmp_path / "github" / "acme" / "cli"
    assert cli.issues_base_url == "https://github.com/acme/cli/issues/{id}"
    assert cli.fingerprint == s.fingerprint  # runs it takes are answered by this process
    assert s.for_repo("acme/lib") is s and s.for_repo(None) is s


def test_open_corpora_must_be_one_or_more() -> None:
    assert Settings.from_env({"ATLAS_OPEN_CORPORA": "3"}).org.open_corpora == 3
    with pytest.raises(ConfigError, match="ATLAS_OPEN_CORPORA"):
        Settings.from_env({"ATLAS_OPEN_CORPORA": "0"})


def test_github_repo_named_in_the_list_becomes_the_primary() -> None:
    s = Settings.from_env({"ATLAS_GITHUB_REPO": "acme/cli", "ATLAS_GITHUB_REPOS": "acme/lib,acme/cli"})
    assert s.org.repos == ("acme/cli", "acme/lib") and s.github is not None and s.github.repo == "acme/cli"


def test_each_repository_s_settings_name_its_project_unless_the_operator_named_it() -> None:
    from atlas.org_settings import org_project

    s = Settings.from_env({"ATLAS_GITHUB_REPOS": "acme/lib,acme/cli"})
    cli = s.for_repo("acme/cli").project
    assert (cli.name, cli.description) == ("cli", "cli, the GitHub repository acme/cli")
    assert org_project(s.project, "acme/lib", s.repos).description == "the GitHub repositories acme/lib, acme/cli"
    named = Settings.from_env(
        {"ATLAS_GITHUB_REPOS": "acme/lib,acme/cli", "ATLAS_PROJECT_NAME": "Acme", "ATLAS_PROJECT_DESCRIPTION": "Acme's"}
    )
    assert named.for_repo("acme/cli").project == named.project
    assert org_project(named.project, "acme/lib", named.repos) == named.project
