"""One webhook URL for every repository (issue 38): routed by the payload's repository, each its own data;
an App's installation_repositories changes the set served. Real HTTP, real Redis, a real worker."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from rq import Queue

from atlas import served_repos
from atlas.settings import Settings
from tests.standins.github_webhooks import deliver, payload
from tests.support.github_harness import exported
from tests.support.org_harness import Org
from tests.support.processes import wait_for, worker_process
from tests.support.webhook_server import serving_org_webhooks


@pytest.fixture
def org(atlas_env: dict[str, str]) -> Iterator[tuple[Org, str]]:
    with serving_org_webhooks(atlas_env) as served:
        yield served


def _first_issue(repo) -> int:  # type: ignore[no-untyped-def]
    return next(n for n, i in sorted(repo.issues.items()) if "pull_request" not in i)


def _queued(conn: redis.Redis, settings: Settings) -> int:
    return Queue(settings.queue_name, connection=conn).count


def test_each_repository_s_webhook_updates_only_its_own_folder(org, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    n1, n2 = _first_issue(up.first), _first_issue(up.second)
    one = up.first.edit_issue(n1, title="Zeppelin workers hang on shutdown")
    two = up.second.edit_issue(n2, title="Quokka flag ignored by the CLI")
    for repo, issue, delivery in ((up.first, one, "d-a"), (up.second, two, "d-b")):
        body = payload("issues-edited", repo, action="edited", issue=issue, changes={"title": {"from": "old"}})
        assert deliver(url, "issues", body, delivery=delivery)[0] == 202
    assert _queued(redis_conn, up.settings) == 2
    first, second = up.settings.for_repo(up.first.full_name), up.settings.for_repo(up.second.full_name)
    assert first.data_dir != second.data_dir
    with worker_process(up.env, "org-webhook-worker", "--burst"):
        wait_for(lambda: exported(second)[n2]["title"] == "Quokka flag ignored by the CLI", timeout=60)
    assert exported(first)[n1]["title"] == "Zeppelin workers hang on shutdown"
    assert "Quokka" not in json.dumps(exported(first)) and "Zeppelin" not in json.dumps(exported(second))


def test_a_repository_not_served_is_ignored_and_logged(org, redis_conn, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    other = payload("issues-edited", up.first, action="edited", issue=up.first.issues[_first_issue(up.first)])
    other["repository"]["full_name"] = "acme/website"
    status, text = deliver(url, "issues", other)
    assert status == 202 and "another repository" in text
    assert "acme/website" in caplog.text
    assert _queued(redis_conn, up.settings) == 0


def test_installation_repositories_removed_stops_serving_and_added_serves(org, redis_conn) -> None:  # type: ignore[no-untyped-def]
    up, url = org
    second = {"full_name": up.second.full_name, "id": up.second.repo_id, "name": up.second.name}
    change = {"action": "removed", "repositories_removed": [second], "repositories_added": []}
    status, text = deliver(url, "installation_repositories", change)
    assert status == 200 and "1 removed" in text
    assert served_repos.served(redis_conn, up.settings.repos) == (up.first.full_name,)
    edited = payload("issues-edited", up.second, action="edited", issue=up.second.issues[_first_issue(up.second)])
    assert deliver(url, "issues", edited) == (202, "ignored: another repository\n")
    assert _queued(redis_conn, up.settings) == 0
    website = {"full_name": "acme/website", "id": 77, "name": "website"}
    back = {"action": "added", "repositories_added": [second, website], "repositories_removed": []}
    assert deliver(url, "installation_repositories", back)[0] == 200
    assert served_repos.served(redis_conn, up.settings.repos) == (*up.settings.repos, "acme/website")
    assert deliver(url, "issues", edited, delivery="d-again")[0] == 202


def test_an_installation_change_naming_no_repository_is_400(org, redis_conn) -> None:  # type: ignore[no-untyped-def]
    _, url = org
    bad = {"action": "added", "repositories_added": [{"full_name": "../../etc"}], "repositories_removed": []}
    assert deliver(url, "installation_repositories", bad)[0] == 400
    assert deliver(url, "installation_repositories", {"repositories_added": "x"})[0] == 400
