"""GitHub's rate limits as its docs describe them: `retry-after` when sent, until `x-ratelimit-reset`
when `x-ratelimit-remaining` is 0, and otherwise (a secondary limit without either) at least a minute,
doubling on each retry. Writes and the sync both wait; the waits are recorded, never slept."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for
from tests.support.github_writes_harness import call_tool, open_numbers, tracker_for


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(14, comments=8)) as server:
        yield server
        assert server.violations == []


def _comments_posted(api: GitHubAPI) -> int:
    return len([c for c in api.requests("POST", r"/comments$") if c.status == 201])


def test_a_secondary_limit_without_retry_after_is_waited_out_with_backoff_not_called_a_permission(
    api: GitHubAPI, tmp_path: Path
) -> None:
    sleeps: list[float] = []
    tracker, settings = tracker_for(api, tmp_path, sleeps)
    number = open_numbers(api)[0]
    api.secondary.extend([None, None])  # GitHub's 403 "You have exceeded a secondary rate limit", no retry-after
    output = call_tool(tracker, settings, "post_comment", {"issue_id": number, "body": "Thanks!"})
    assert output.ok, output.text
    assert "Issues: read and write" not in output.text
    assert [s for s in sleeps if s >= 1] == [60.0, 120.0]  # at least a minute, then exponentially longer
    assert _comments_posted(api) == 1


def test_a_spent_primary_limit_waits_until_its_reset(api: GitHubAPI, tmp_path: Path) -> None:
    sleeps: list[float] = []
    tracker, _ = tracker_for(api, tmp_path, sleeps)
    number = open_numbers(api)[0]
    api.rate_reset = int(time.time()) + 90
    api.rate_remaining = 0  # 403 with x-ratelimit-remaining: 0 until the reset

    def reset(seconds: float) -> None:
        sleeps.append(seconds)
        api.rate_remaining = api.rate_limit  # the hour rolled over

    tracker.sleep = reset
    tracker.post_comment(number, "after the reset", key="k")
    assert 80 <= max(sleeps) <= 92
    assert _comments_posted(api) == 1


def test_a_limit_that_outlasts_the_backoff_is_reported_as_a_rate_limit(api: GitHubAPI, tmp_path: Path) -> None:
    sleeps: list[float] = []
    tracker, settings = tracker_for(api, tmp_path, sleeps)
    number = open_numbers(api)[0]
    api.secondary.extend([None] * 10)
    output = call_tool(tracker, settings, "post_comment", {"issue_id": number, "body": "Thanks!"})
    assert not output.ok and "rate limit" in output.text and "Issues: read and write" not in output.text
    assert _comments_posted(api) == 0


def test_the_sync_waits_out_a_secondary_limit_without_retry_after(api: GitHubAPI, tmp_path: Path) -> None:
    api.secondary.extend([None])
    sleeps: list[float] = []
    report = run_sync(api, settings_for(api, tmp_path), sleeps=sleeps)
    assert report.complete, report.stopped
    assert sleeps == [60.0]
