"""A GitHub App's installation changing (issue 38): an added repository is synced by itself, a deleted or
suspended installation's repositories stop being served and written to, an unsuspended one is served again.
Real HTTP, real Redis, a real worker, the GitHub stand-in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rq import Queue

from atlas import served_repos
from tests.standins.github_webhooks import deliver
from tests.support.github_harness import exported
from tests.support.org_harness import Org, second_repo
from tests.support.processes import wait_for, worker_process
from tests.support.webhook_server import serving_org_webhooks
from tools.errors import TrackerError
from tools.trackers import tracker_for
from workers.runs.job_names import PERIODIC_SYNC


@pytest.fixture
def org(atlas_env: dict[str, str]) -> Iterator[tuple[Org, str]]:
    with serving_org_webhooks(atlas_env) as served:
        yield served


def _named(repo: Any) -> dict[str, Any]:
    return {"id": repo.repo_id, "node_id": f"R_{repo.repo_id}", "name": repo.name, "full_name": repo.full_name}


def _installation(action: str, *repos: Any) -> dict[str, Any]:
    """An `installation` delivery as GitHub sends it: the installation, and the repositories it covers."""
    return {
        "action": action,
        "installation": {"id": 55, "account": {"login": "acme"}, "repository_selection": "selected"},
        "repositories": [_named(r) for r in repos],
        "sender": {"login": "octocat"},
    }


def _syncs(conn: redis.Redis, queue: str) -> list[tuple[Any, ...]]:
    return [tuple(j.args) for j in Queue(queue, connection=conn).get_jobs() if j.func_name == PERIODIC_SYNC]


@pytest.mark.parametrize("event", ["installation_repositories", "installation"])
def test_an_added_repository_is_synced_without_an_operator(org, redis_conn: redis.Redis, event: str) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    docs = second_repo(8, 4, name="website", repo_id=6161, seed=23)
    up.api.others[docs.full_name] = docs
    if event == "installation":
        body = _installation("created", up.first, up.second, docs)
    else:
        body = {"action": "added", "repositories_added": [_named(docs)], "repositories_removed": []}
    status, _ = deliver(url, event, body)
    assert status == 200
    assert docs.full_name in served_repos.served(redis_conn, up.settings.repos)
    assert (docs.full_name,) in _syncs(redis_conn, up.settings.queue_name)
    website = up.settings.for_repo(docs.full_name)
    with worker_process(up.env, f"install-sync-{event}", "--burst"):
        wait_for(lambda: (website.data_dir / "issues" / "issues.jsonl").is_file(), timeout=60)
    titles = {row["title"] for row in exported(website).values()}
    assert titles and titles <= {i["title"] for i in docs.issues.values()}


def test_a_deleted_installation_stops_serving_and_writing(org, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    assert deliver(url, "installation", _installation("deleted", up.second))[0] == 200
    assert served_repos.served(redis_conn, up.settings.repos) == (up.first.full_name,)
    tracker = tracker_for(up.settings.for_repo(up.second.full_name), redis_conn)
    number = next(n for n, i in sorted(up.second.issues.items()) if "pull_request" not in i)
    writes = len(up.api.requests("POST"))
    with pytest.raises(TrackerError, match="no longer served"):
        tracker.add_labels(number, ["bug"])
    assert len(up.api.requests("POST")) == writes


def test_a_suspended_installation_is_refused_until_unsuspended(org, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    assert deliver(url, "installation", _installation("suspend", up.first, up.second))[0] == 200
    assert served_repos.served(redis_conn, up.settings.repos) == ()
    assert "suspended" in (served_repos.withdrawn(redis_conn, up.second.full_name) or "")
    tracker = tracker_for(up.settings.for_repo(up.second.full_name), redis_conn)
    number = next(n for n, i in sorted(up.second.issues.items()) if "pull_request" not in i)
    with pytest.raises(TrackerError, match="suspended"):
        tracker.post_comment(number, "hello")
    assert not up.api.requests("POST")
    assert deliver(url, "installation", _installation("unsuspend", up.first, up.second), delivery="u")[0] == 200
    assert served_repos.served(redis_conn, up.settings.repos) == up.settings.repos
    assert served_repos.withdrawn(redis_conn, up.second.full_name) is None


@pytest.mark.parametrize(
    "body",
    [
        {"action": "deleted", "installation": "x"},
        {"action": "created", "installation": {"id": 55}, "repositories": [{"name": "x"}]},
        {"action": "created", "installation": {"id": 55}, "repositories": [{"full_name": "../../etc"}]},
        {"installation": {"id": 55}},
    ],
)
def test_a_malformed_installation_delivery_is_400(org, redis_conn: redis.Redis, body: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    status, text = deliver(url, "installation", body)
    assert status == 400 and "installation" in text
    assert served_repos.served(redis_conn, up.settings.repos) == up.settings.repos
