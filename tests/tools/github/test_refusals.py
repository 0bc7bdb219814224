"""Writes Atlas must refuse on GitHub: an issue transferred to another repository (GitHub answers 301
and githubkit would follow it there), a deleted issue (410), and a pull request (issue endpoints
accept pull request numbers). Nothing is sent, and the tool result says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import exported
from tests.support.github_writes_harness import call_tool, open_numbers, tracker_for
from tools.errors import TrackerError


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(14, comments=8)) as server:
        yield server
        assert server.violations == []


def _writes(api: GitHubAPI) -> list[str]:
    return [f"{c.method} {c.path}" for c in api.calls if c.method != "GET" or "/launchpad/" in c.path]


def test_a_transferred_issue_is_refused_everywhere_and_leaves_search(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, settings = tracker_for(api, tmp_path)
    number = open_numbers(api)[0]
    assert number in exported(settings)
    moved = api.transfer(number, "acme/launchpad")
    said = f"issue #{number} was transferred to acme/launchpad; nothing was done"
    for attempt in (
        lambda: tracker.close_issue(number, "completed", None, key="k1"),
        lambda: tracker.add_labels(number, ["bug"], key="k2"),
        lambda: tracker.post_comment(number, "hello", key="k3"),
    ):
        with pytest.raises(TrackerError, match=said):
            attempt()
    assert _writes(api) == []  # nothing re-sent to the new repository, no POST turned into a GET
    assert api.others["acme/launchpad"].issues[moved]["state"] == "open"
    assert number not in exported(settings)  # out of search at once
    output = call_tool(
        tracker, settings, "close_issue", {"issue_id": number, "reason": "completed", "duplicate_of": None}
    )
    assert not output.ok and said in output.text


def test_a_renamed_repository_is_said_to_be_renamed_not_an_issue_transferred(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, _ = tracker_for(api, tmp_path)
    number = open_numbers(api)[0]
    api.rename("rocket-ng")
    with pytest.raises(TrackerError, match="acme/rocket was renamed or moved; set ATLAS_GITHUB_REPO to its new name"):
        tracker.post_comment(number, "hello", key="k")
    assert [c.status for c in api.calls if "/issues/" in c.path][-1] == 301 and _writes(api) == []


def test_a_deleted_issue_is_said_to_be_deleted_and_leaves_search(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, settings = tracker_for(api, tmp_path)
    number = open_numbers(api)[0]
    api.delete(number)
    with pytest.raises(TrackerError, match=f"issue #{number} was deleted from acme/rocket; nothing was done"):
        tracker.post_comment(number, "hello", key="k")
    assert _writes(api) == [] and number not in exported(settings)


def test_a_pull_request_is_not_an_issue(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, settings = tracker_for(api, tmp_path)
    pull = open_numbers(api, pulls=True)[0]
    for tool, arguments, direct in (
        ("add_labels", {"issue_id": pull, "labels": ["bug"]}, lambda: tracker.add_labels(pull, ["bug"])),
        ("post_comment", {"issue_id": pull, "body": "hi"}, lambda: tracker.post_comment(pull, "hi")),
        (
            "close_issue",
            {"issue_id": pull, "reason": "completed", "duplicate_of": None},
            lambda: tracker.close_issue(pull, "completed", None),
        ),
    ):
        output = call_tool(tracker, settings, tool, arguments)
        assert not output.ok and f"#{pull} is a pull request, not an issue" in output.text, tool
        with pytest.raises(TrackerError, match="is a pull request, not an issue"):
            direct()
    assert _writes(api) == []
