"""The REST API version Atlas asks for (`X-GitHub-Api-Version`) is a setting, for GitHub Enterprise
Server, whose releases accept older versions than api.github.com. GitHub answers an unsupported
version with 400; that, and a 410 that is not about a deleted issue, is said as what it is, never as
"no such issue" or "GitHub is unavailable"."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.errors import ConfigError
from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for
from tests.support.github_writes_harness import open_numbers, tracker_for
from tools.errors import TrackerError


def test_an_enterprise_server_version_is_sent_on_every_request_when_configured(tmp_path: Path) -> None:
    with GitHubAPI(generate(12, comments=6)) as api:
        api.api_versions = {"2022-11-28"}  # an Enterprise Server release
        tracker, settings = tracker_for(api, tmp_path, ATLAS_GITHUB_API_VERSION="2022-11-28")
        assert run_sync(api, settings).complete
        tracker.post_comment(open_numbers(api)[0], "works on GHES", key="k")
        assert {c.headers.get("x-github-api-version") for c in api.calls} == {"2022-11-28"}
        assert all(c.status < 400 for c in api.calls) and api.violations == []


def test_an_unsupported_version_says_which_setting_to_change(tmp_path: Path) -> None:
    with GitHubAPI(generate(12, comments=6)) as api:
        settings = settings_for(api, tmp_path)
        assert run_sync(api, settings).complete  # api.github.com accepts githubkit's version
        api.api_versions = {"2022-11-28"}
        report = run_sync(api, settings_for(api, tmp_path / "ghes"))
        assert not report.complete and "ATLAS_GITHUB_API_VERSION" in (report.stopped or "")


def test_a_gone_answer_that_is_not_a_deleted_issue_is_not_no_such_issue(tmp_path: Path) -> None:
    with GitHubAPI(generate(12, comments=6)) as api:
        tracker, _ = tracker_for(api, tmp_path)
        number = open_numbers(api)[0]
        api.fail_next(rf"GET /repos/acme/rocket/issues/{number}\?", 410)  # e.g. a retired API version or endpoint
        with pytest.raises(TrackerError, match="410") as raised:
            tracker.issue(number)
        assert "no issue" not in str(raised.value) and "does not exist" not in str(raised.value)
        api.api_versions = {"2022-11-28"}
        with pytest.raises(TrackerError, match="ATLAS_GITHUB_API_VERSION"):
            tracker.issue(number)


@pytest.mark.parametrize("value", ["latest", "v3", "2022-11-28T00:00:00Z", "28-11-2022"])
def test_a_malformed_version_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(ConfigError, match="ATLAS_GITHUB_API_VERSION"):
        Settings.from_env({"ATLAS_GITHUB_REPO": "acme/rocket", "GITHUB_TOKEN": "t", "ATLAS_GITHUB_API_VERSION": value})
