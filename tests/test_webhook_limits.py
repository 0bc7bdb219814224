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


def _refused_at_the_headers(base: str, path: str, length: int) -> bytes:
    """The status line answering a request that announced a `length`-byte body and sent none of it."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n".encode())
        return sock.recv(100).split(b"\r\n")[0]


def test_a_large_body_to_slack_is_refused_before_it_is_read_with_a_log_line(served, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    _, _, base = served
    caplog.set_level("INFO")
    assert _refused_at_the_headers(base, "/slack/events", 2 * MB).startswith(b"HTTP/1.1 413")
    assert any("/slack/events" in r.getMessage() and str(2 * MB) in r.getMessage() for r in caplog.records), caplog.text


def test_a_chunked_body_is_held_to_its_routes_limit_too(served, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    _, _, base = served
    caplog.set_level("INFO")
    host, port = base.removeprefix("http://").split(":")
    chunks = [b"x" * (256 * 1024)] * 8  # 2 MiB in chunks, no Content-Length
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/slack/events", body=iter(chunks), encode_chunked=True, headers={"Content-Type": "application/json"})
    assert conn.getresponse().status == 413
    conn.close()
    assert any("/slack/events" in r.getMessage() for r in caplog.records), caplog.text


def test_a_body_above_githubs_25_mb_is_refused_with_a_log_line(served, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    _, _, base = served
    caplog.set_level("INFO")
    too_big = 26 * 1024 * 1024
    assert _refused_at_the_headers(base, "/github/webhook", too_big).startswith(b"HTTP/1.1 413")
    assert any("/github/webhook" in r.getMessage() and str(too_big) in r.getMessage() for r in caplog.records), caplog.text


def test_a_non_ascii_signature_is_401_not_500(served, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, base = served
    body = _big_issue_event(api, 10)
    assert deliver(base + "/github/webhook", "issues", body, signature="sha256=" + "é" * 64)[0] == 401
    assert deliver(base + "/github/webhook", "issues", body, signature="sha256=\u00ff")[0] == 401
    assert Queue(settings.queue_name, connection=redis_conn).count == 0
