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
from tests.support.webhook_server import serving_webhooks

MB = 1000 * 1000


@pytest.fixture
def served(atlas_env: dict[str, str], redis_conn: redis.Redis) -> Iterator[tuple[GitHubAPI, Settings, str]]:
    with serving_webhooks(atlas_env, issues=3, comments=2) as up:
        yield up.api, up.settings, up.base_url


def _big_issue_event(api: GitHubAPI, size: int) -> dict[str, object]:
    number = next(n for n, i in api.repo.issues.items() if "pull_request" not in i)
    issue = {**api.repo.issues[number], "body": "x" * size}
    return payload("issues-edited", api.repo, action="edited", issue=issue, changes={})


def test_a_github_payload_of_several_megabytes_is_accepted(served, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, base = served
    for size in (2 * MB, 10 * MB):
        status, text = deliver(base + "/github/webhook", "issues", _big_issue_event(api, size))
        assert (status, text) == (202, "queued\n"), size
    assert Queue(settings.queue_name, connection=redis_conn).count == 2


def _refused_at_the_headers(base: str, path: str, length: int) -> bytes:
    """The status line answering a request that announced a `length`-byte body and sent none of it."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: "
            f"application/json\r\nContent-Length: {length}\r\n\r\n".encode()
        )
        return sock.recv(100).split(b"\r\n")[0]


def test_bodies_above_their_routes_limit_are_refused_before_they_are_read_with_a_log_line(
    served, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    _, _, base = served
    caplog.set_level("INFO")

    def logged(path: str, size: str) -> bool:
        return any(path in r.getMessage() and size in r.getMessage() for r in caplog.records)

    assert _refused_at_the_headers(base, "/slack/events", 2 * MB).startswith(b"HTTP/1.1 413")
    assert logged("/slack/events", str(2 * MB)), caplog.text
    too_big = 26 * 1024 * 1024  # above what GitHub sends
    assert _refused_at_the_headers(base, "/github/webhook", too_big).startswith(b"HTTP/1.1 413")
    assert logged("/github/webhook", str(too_big)), caplog.text
    caplog.clear()
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)  # 2 MiB in chunks, no Content-Length
    conn.request(
        "POST",
        "/slack/events",
        body=iter([b"x" * (256 * 1024)] * 8),
        encode_chunked=True,
        headers={"Content-Type": "application/json"},
    )
    assert conn.getresponse().status == 413
    conn.close()
    assert logged("/slack/events", "byte request body"), caplog.text


def test_a_non_ascii_signature_is_401_not_500(served, redis_conn: redis.Redis) -> None:  # type: ignore[no-untyped-def]
    api, settings, base = served
    body = _big_issue_event(api, 10)
    assert deliver(base + "/github/webhook", "issues", body, signature="sha256=" + "é" * 64)[0] == 401
    assert deliver(base + "/github/webhook", "issues", body, signature="sha256=\u00ff")[0] == 401
    assert Queue(settings.queue_name, connection=redis_conn).count == 0
