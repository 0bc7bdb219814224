"""Signed GitHub deliveries of the wrong shape, over real HTTP against `atlas serve`'s server (issue 35).

A signature proves the sender, not the shape: a `repository` that is a string or a list, a body nested
100,000 deep, an issue numbered -1 or "7", a comment without an id are each a 400 saying why, with no
traceback and nothing queued (the job used to crash and be retried four times, or store and triage #-1).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rq import Queue

from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_webhooks import deliver, payload
from tests.support.webhook_server import serving_webhooks


@pytest.fixture
def served(atlas_env: dict[str, str], redis_conn: redis.Redis) -> Iterator[tuple[GitHubAPI, Settings, str]]:
    with serving_webhooks(atlas_env, issues=3, comments=2) as up:
        yield up.api, up.settings, up.url


def _opened(api: GitHubAPI) -> dict[str, Any]:
    number = next(n for n, i in api.repo.issues.items() if "pull_request" not in i)
    return payload("issues-opened", api.repo, action="opened", issue=copy.deepcopy(api.repo.issues[number]))


def _with(body: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(body)
    where = changed
    for key in path[:-1]:
        where = where[key]
    if value is KeyError:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    return changed


def test_a_signed_payload_of_the_wrong_shape_is_400_saying_why_and_nothing_is_queued(
    served, redis_conn: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    api, settings, url = served
    opened = _opened(api)
    comment = payload(
        "issue-comment-created",
        api.repo,
        action="created",
        issue=opened["issue"],
        comment={"id": 9001, "body": "Same here.", "user": {"login": "zoe"}, "author_association": "NONE"},
    )
    cases: list[tuple[str, dict[str, Any] | bytes, str]] = [
        ("issues", _with(opened, ("repository",), "rocket/rocket"), "repository"),
        ("issues", _with(opened, ("repository",), ["rocket/rocket"]), "repository"),
        ("issues", b'{"repository": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deep"),
        ("issues", b"[1, 2, 3]", "not a JSON object"),
        ("issues", _with(opened, ("issue", "number"), -1), "issue.number"),
        ("issues", _with(opened, ("issue", "number"), "7"), "issue.number"),
        ("issues", _with(opened, ("issue", "labels"), "bug"), "issue.labels"),
        ("issue_comment", _with(comment, ("comment", "id"), KeyError), "comment.id"),
        (
            "label",
            _with(
                payload("label-created", api.repo, action="created", label=api.repo.add_label("needs-triage")),
                ("label", "name"),
                ["x"],
            ),
            "label.name",
        ),
    ]
    with caplog.at_level(logging.INFO):
        for event, body, why in cases:
            status, text = deliver(url, event, body)
            assert (status, why in text) == (400, True), (event, why, text)
            assert "Traceback" not in text
    assert Queue(settings.queue_name, connection=redis_conn).count == 0
    assert not [r for r in caplog.records if r.exc_info], "a refused payload logged a traceback"
    assert "Traceback" not in caplog.text
    # The same deliveries well formed are queued, so the refusals above are about the shape alone
    assert deliver(url, "issues", opened)[0] == 202 and deliver(url, "issue_comment", comment)[0] == 202
    assert Queue(settings.queue_name, connection=redis_conn).count == 2
