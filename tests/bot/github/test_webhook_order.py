"""Webhooks out of order: GitHub does not promise delivery order, so a late `opened` or a late comment
`created` must not undo the edit that followed it (issue 22 item 9). Real HTTP, Redis and `atlas worker`."""

from __future__ import annotations

import copy
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from datasets.github.store import Store
from tests.standins.github_api import GitHubAPI
from tests.standins.github_webhooks import deliver, payload
from tests.support.github_harness import exported
from tests.support.processes import worker_process
from tests.support.webhook_server import serving_webhooks


@pytest.fixture
def setup(
    atlas_env: dict[str, str], redis_conn: redis.Redis
) -> Iterator[tuple[GitHubAPI, Settings, str, dict[str, str]]]:
    with serving_webhooks(atlas_env, issues=6, comments=4) as up:
        yield up.api, up.settings, up.url, up.env


def test_a_late_opened_or_created_does_not_undo_the_edit_after_it(setup) -> None:  # type: ignore[no-untyped-def]
    api, settings, url, env = setup
    number = next(n for n, i in api.repo.issues.items() if "pull_request" not in i)
    as_opened = copy.deepcopy(api.repo.issues[number])  # the issue as its `opened` delivery carried it
    edited = api.repo.edit_issue(number, title="Zeppelin workers hang on shutdown")
    comment = api.repo.add_comment(number, "first words")
    as_created = copy.deepcopy(comment)
    comment.update(body="second words", updated_at=api.repo.tick())
    issue = api.repo.issues[number]
    in_order = [
        (
            "issues",
            payload(
                "issues-edited",
                api.repo,
                action="edited",
                issue=edited,
                changes={"title": {"from": as_opened["title"]}},
            ),
        ),
        (
            "issue_comment",
            payload(
                "issue-comment-edited",
                api.repo,
                action="edited",
                issue=issue,
                comment=comment,
                changes={"body": {"from": "first words"}},
            ),
        ),
        ("issues", payload("issues-opened", api.repo, action="opened", issue=as_opened)),  # late
        (
            "issue_comment",
            payload("issue-comment-created", api.repo, action="created", issue=issue, comment=as_created),
        ),  # late
    ]
    for event, body in in_order:
        assert deliver(url, event, body)[0] == 202
    with worker_process(env, "gh-order-worker", "--burst") as proc:
        proc.wait(timeout=90)
    row = exported(settings)[number]
    assert row["title"] == "Zeppelin workers hang on shutdown"
    assert [c["body"] for c in row["comments"] if c["body"] in ("first words", "second words")] == ["second words"]


def test_a_store_made_before_comments_had_updated_at_still_opens_and_compares(tmp_path: Path) -> None:
    state = tmp_path / ".sync" / "state.db"
    state.parent.mkdir(parents=True)
    old = sqlite3.connect(state)
    old.execute(
        "CREATE TABLE comments(id INTEGER PRIMARY KEY, issue_number INTEGER "
        "NOT NULL, created_at TEXT, record TEXT NOT NULL)"
    )
    old.execute("INSERT INTO comments VALUES (1, 3, '2026-01-01T00:00:00Z', ?)", (json.dumps({"body": "kept"}),))
    old.commit()
    old.close()
    store = Store(tmp_path)
    try:
        late = {"id": 1, "body": "late", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
        store.put_comment({**late, "body": "edited", "updated_at": "2026-01-02T00:00:00Z"}, 3)
        store.put_comment(late, 3)
        [(record,)] = store.conn.execute("SELECT record FROM comments WHERE id = 1").fetchall()
        assert json.loads(record)["body"] == "edited"
    finally:
        store.close()
