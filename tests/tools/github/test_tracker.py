"""The GitHub tracker against the stand-in: writes, the local index after them, errors, pacing, settling."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from atlas import github_client
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import exported, run_sync, settings_for
from tools.errors import TrackerError, TrackerUnavailable
from tools.github.pacing import WritePacer
from tools.github.tracker import GitHubTracker, marker


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(40, comments=30)) as server:
        yield server
        assert server.violations == []


def _tracker(
    api: GitHubAPI, tmp_path: Path, conn: redis.Redis | None = None, sleeps: list[float] | None = None
) -> tuple[GitHubTracker, object]:
    settings = settings_for(api, tmp_path)
    run_sync(api, settings)
    gh = settings.github
    assert gh is not None
    record = sleeps.append if sleeps is not None else (lambda s: None)
    pacer = WritePacer(conn, gh.repo, sleep=record)
    return GitHubTracker(gh, lambda: github_client.client(gh), settings.data_dir, pacer, sleep=record), settings


def _open_issue(api: GitHubAPI, *, skip: int = 0) -> int:
    numbers = [n for n, i in api.repo.issues.items() if i["state"] == "open" and "pull_request" not in i]
    return numbers[skip]


def test_close_as_duplicate_sends_the_originals_id_and_updates_search_at_once(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, settings = _tracker(api, tmp_path)
    dup, original = _open_issue(api), _open_issue(api, skip=1)
    issue = tracker.close_issue(dup, "duplicate", original, key="run1.call1")
    [patch] = api.requests("PATCH")
    assert patch.body == {
        "state": "closed",
        "state_reason": "duplicate",
        "duplicate_issue_id": api.repo.issues[original]["id"],
    }
    assert patch.body["duplicate_issue_id"] != original  # the internal id, not the number
    assert issue.state == "closed" and issue.url == f"https://github.com/acme/rocket/issues/{dup}"
    row = exported(settings)[dup]
    assert row["state"] == "closed" and row["duplicate_of"] == original


def test_server_rejecting_duplicate_falls_back_to_a_comment_and_not_planned(api: GitHubAPI, tmp_path: Path) -> None:
    api.reject_duplicate = True
    tracker, _ = _tracker(api, tmp_path)
    dup, original = _open_issue(api), _open_issue(api, skip=1)
    issue = tracker.close_issue(dup, "duplicate", original, key="run1.call1")
    assert [c.status for c in api.requests("PATCH")] == [422, 200]
    assert api.requests("PATCH")[-1].body == {"state": "closed", "state_reason": "not_planned"}
    [comment] = api.requests("POST", r"/comments$")
    assert comment.body["body"].startswith(f"Duplicate of #{original}") and marker("run1.call1") in comment.body["body"]
    assert issue.note and "not planned" in issue.note


def test_comment_carries_the_marker_and_settle_finds_it(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, settings = _tracker(api, tmp_path)
    number = _open_issue(api)
    url = tracker.post_comment(number, "Thanks, fixed in 2.0.", key="runA.callB")
    [post] = api.requests("POST")
    assert post.body["body"].endswith("<!-- atlas:runA.callB -->")
    assert url.startswith("https://github.com/acme/rocket/issues/")
    assert any("fixed in 2.0" in c["body"] for c in exported(settings)[number]["comments"])
    assert tracker.settle("post_comment", {"issue_id": number, "body": "x"}, "runA.callB") is not None
    assert tracker.settle("post_comment", {"issue_id": number, "body": "x"}, "other.key") is None
    assert len(api.requests("POST")) == 1


def test_add_labels_only_sends_labels_that_exist(api: GitHubAPI, tmp_path: Path) -> None:
    tracker, settings = _tracker(api, tmp_path)
    number = _open_issue(api)
    with pytest.raises(TrackerError, match="do not exist"):
        tracker.add_labels(number, ["bug", "made-up"])
    assert api.requests("POST") == []
    issue = tracker.add_labels(number, ["area:queue"], key="k")
    assert "area:queue" in issue.labels and "area:queue" in exported(settings)[number]["labels"]
    assert tracker.settle("add_labels", {"issue_id": number, "labels": ["area:queue"]}, "k") is not None


def test_http_failures_become_clear_errors(tmp_path: Path) -> None:
    with GitHubAPI(generate(10, comments=2), permissions={"issues": "read", "contents": "read"}) as api:
        tracker, _ = _tracker(api, tmp_path)
        with pytest.raises(TrackerError, match="'Issues: read and write'"):
            tracker.post_comment(_open_issue(api), "hi")
        api.fail_next(r"GET /repos/acme/rocket/issues/1\?", 502)
        with pytest.raises(TrackerUnavailable, match="unavailable"):
            tracker.issue(1)
        assert tracker.issue(9999) is None


def test_writes_are_spaced_and_retry_after_is_honoured(api: GitHubAPI, tmp_path: Path, redis_conn: redis.Redis) -> None:
    sleeps: list[float] = []
    tracker, _ = _tracker(api, tmp_path, conn=redis_conn, sleeps=sleeps)
    number = _open_issue(api)
    tracker.post_comment(number, "one")
    assert sleeps == []
    api.secondary.extend([2])
    tracker.post_comment(number, "two")
    assert sleeps[0] > 0.5  # waited for the one-second gap since the last write
    assert 2.0 in sleeps  # and for the secondary rate limit's retry-after
    assert len([c for c in api.requests("POST") if c.status == 201]) == 2


def test_the_duplicate_fallback_is_said_in_the_tool_result(api: GitHubAPI, tmp_path: Path) -> None:
    import json

    from tools import execute, open_corpus, v2_registry, validate
    from tools.context import ToolContext

    api.reject_duplicate = True
    tracker, settings = _tracker(api, tmp_path)
    dup, original = _open_issue(api), _open_issue(api, skip=1)
    ctx = ToolContext(corpus=open_corpus(settings.data_dir), run_id="r1", call_id="c1", tracker=tracker)
    registry = v2_registry()
    args = validate(
        registry, "close_issue", json.dumps({"issue_id": dup, "reason": "duplicate", "duplicate_of": original}), ctx
    )
    output = execute(registry, "close_issue", args, ctx)
    assert output.ok and f"as a duplicate of #{original}" in output.text
    assert f'commented "Duplicate of #{original}" and closed it as not planned' in output.text
