"""Request bodies per route and hostile signature headers, over real HTTP against `atlas serve`'s server.

GitHub sends webhook payloads of up to 25 MB; Slack's and Discord's are a few KiB. Each route has its
own limit, and every refused body leaves a log line (issue 22 items 8 and 21).
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator

import pytest
import redis
from rq import Queue

from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_webhooks import deliver, payload
from tests.webhook_server import serving_webhooks

MB = 1000 * 1000


@pytest.fixture
def served(atlas_env: dict[str, str], redis_conn: redis.Redis) -> Iterator[tuple[GitHubAPI, Settings, str]]:
    with serving_webhooks(atlas_env, issues=3, comments=2) as up:
        yield up.api, up.settings, up.base_url


def _big_issue_event(api: GitHubAPI, size: int) -> dict[str, object]:
    number = next(n for n, i in api.repo.issues.items() if "pull_request" not in i)
    issue = {**api.repo.issues[number], "body": "x" * size}
    return payload("issues-edited", api.repo, action="edited", issue=issue, changes={})


@pytest.mark.parametrize("size", [2 * MB, 10 * MB])
def test_a_github_payload_of_several_megabytes_is_accepted(served, redis_conn: redis.Redis, size: int) -> None:  # type: ignore[no-untyped-def]
    api, settings, base = served
    status, text = deliver(base + "/github/webhook", "issues", _big_issue_event(api, size))
    assert (status, text) == (202, "queued\n")
    assert Queue(settings.queue_name, connection=redis_conn).count == 1


def test_a_large_body_to_slack_is_refused_with_a_log_line(served, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    _, _, base = served
    caplog.set_level("INFO")
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/slack/events", body=b"{" + b" " * (2 * MB) + b"}", headers={"Content-Type": "application/json"})
    assert conn.getresponse().status == 413
    conn.close()
    assert any("/slack/events" in r.getMessage() and "2000002" in r.getMessage() for r in caplog.records), caplog.text


def test_a_body_above_githubs_25_mb_is_refused_with_a_log_line(served, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    _, _, base = served
    caplog.set_level("INFO")
    host, port = base.removeprefix("http://").split(":")
    too_big = 26 * 1024 * 1024
    with socket.create_connection((host, int(port)), timeout=10) as sock:  # the headers only: refused before the body
        sock.sendall(f"POST /github/webhook HTTP/1.1\r\nHost: x\r\nContent-Length: {too_big}\r\n\r\n".encode())
        assert sock.recv(100).startswith(b"HTTP/1.1 413")
    assert any("/github/webhook" in r.getMessage() and str(too_big) in r.getMessage() for r in caplog.records), caplog.text


def test_a_non_ascii_signature_is_401_not_500(served, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, base = served
    body = _big_issue_event(api, 10)
    assert deliver(base + "/github/webhook", "issues", body, signature="sha256=" + "é" * 64)[0] == 401
    assert deliver(base + "/github/webhook", "issues", body, signature="sha256=\u00ff")[0] == 401
    assert Queue(settings.queue_name, connection=redis_conn).count == 0
