"""`POST /github/webhook` over real HTTP (waitress), real Redis, a real `atlas worker` applying events."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from rq import Queue

from atlas.settings import Settings
from datasets.github.store import Store
from tests.standins.github_api import GitHubAPI
from tests.standins.github_webhooks import deliver, payload
from tests.support.github_harness import exported
from tests.support.processes import wait_for, worker_process
from tests.support.webhook_server import serving_webhooks
from tools import dispatch, open_corpus, v2_registry
from tools.context import ToolContext


@pytest.fixture
def setup(
    atlas_env: dict[str, str], redis_conn: redis.Redis
) -> Iterator[tuple[GitHubAPI, Settings, str, dict[str, str]]]:
    with serving_webhooks(atlas_env, issues=30, comments=20) as up:
        yield up.api, up.settings, up.url, up.env


def _queued(conn: redis.Redis, settings: Settings) -> int:
    return Queue(settings.queue_name, connection=conn).count


def _search(settings: Settings, query: str) -> str:
    args = json.dumps({"query": query, "state": None, "limit": 5, "detail": "concise"})
    return dispatch(v2_registry(), "search_issues", args, ToolContext(corpus=open_corpus(settings.data_dir))).text


def test_bad_or_missing_signature_is_401_and_nothing_is_queued(setup, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, url, _ = setup
    body = payload("issues-edited", api.repo, action="edited", issue=api.repo.issues[1], changes={})
    assert deliver(url, "issues", body, secret=None)[0] == 401
    assert deliver(url, "issues", body, secret="wrong")[0] == 401
    assert deliver(url, "issues", body, signature="sha256=" + "0" * 64)[0] == 401
    assert _queued(redis_conn, settings) == 0


def test_ping_and_other_repositories(setup, redis_conn: redis.Redis, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    api, settings, url, _ = setup
    assert deliver(url, "ping", payload("ping", api.repo, zen="Keep it simple."))[0] == 200
    other = payload("issues-edited", api.repo, action="edited", issue=api.repo.issues[1], changes={})
    other["repository"]["full_name"] = "someone/else"
    status, text = deliver(url, "issues", other)
    assert status == 202 and "another repository" in text
    assert "someone/else" in caplog.text
    assert _queued(redis_conn, settings) == 0


def test_edited_issue_is_searchable_once_and_a_redelivery_is_not_applied_twice(setup, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, url, env = setup
    number = next(n for n, i in api.repo.issues.items() if "pull_request" not in i)
    issue = api.repo.edit_issue(number, title="Zeppelin workers hang on shutdown")
    body = payload("issues-edited", api.repo, action="edited", issue=issue, changes={"title": {"from": "old"}})
    assert deliver(url, "issues", body, delivery="d-1")[0] == 202
    assert deliver(url, "issues", body, delivery="d-1") == (200, "duplicate delivery\n")
    assert _queued(redis_conn, settings) == 1
    with worker_process(env, "gh-webhook-worker", "--burst"):
        wait_for(lambda: f"#{number}" in _search(settings, "zeppelin"), timeout=60)
    assert exported(settings)[number]["title"] == "Zeppelin workers hang on shutdown"


def test_deleted_issue_is_gone_from_search(setup, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, url, env = setup
    number = next(n for n, i in api.repo.issues.items() if "pull_request" not in i)
    title_word = api.repo.issues[number]["title"].split()[0]
    assert f"#{number}" in _search(settings, f"{title_word} {number}")
    body = payload("issues-deleted", api.repo, action="deleted", issue=api.repo.issues[number])
    assert deliver(url, "issues", body)[0] == 202
    with worker_process(env, "gh-webhook-worker2", "--burst"):
        wait_for(lambda: number not in exported(settings), timeout=60)
    assert f"#{number} " not in _search(settings, f"{title_word} {number}")


def test_push_to_docs_and_a_new_label_are_applied(setup, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, url, env = setup
    api.repo.files["docs/guides/setup.md"] = b"# Setting up Rocket\n\n## Valkey\n\nRocket also runs on Valkey 9.\n"
    push = payload("push", api.repo, ref="refs/heads/main")
    push["commits"] = [{**commit, "modified": ["docs/guides/setup.md"]} for commit in _one_commit()]
    assert deliver(url, "push", push)[0] == 202
    other_branch = payload("push", api.repo, ref="refs/heads/feature")
    assert deliver(url, "push", other_branch)[0] == 202
    label = payload("label-created", api.repo, action="created", label=api.repo.add_label("needs-triage"))
    assert deliver(url, "label", label)[0] == 202
    blobs_before = len(api.requests("GET", r"/git/blobs/"))
    store = Store(settings.data_dir)
    try:
        with worker_process(env, "gh-webhook-worker3", "--burst"):  # jobs finish before the block ends
            doc = settings.data_dir / "docs" / "guides-setup.md"
            wait_for(lambda: "Valkey 9" in doc.read_text(), timeout=60, what="the pushed doc")
            wait_for(lambda: "needs-triage" in store.labels(), timeout=60, what="the new label")
    finally:
        store.close()
    assert len(api.requests("GET", r"/git/blobs/")) - blobs_before == 1  # only the changed blob


def _one_commit() -> list[dict[str, object]]:
    """A commit as the push schema requires it (from the schema), to mark a changed path on."""
    from tests.standins import github_spec

    schema = github_spec.spec()["x-webhooks"]["push"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    commits = github_spec._resolve(github_spec._resolve(schema)["properties"]["commits"])
    return [github_spec._fill(commits["items"], 0)]
