"""Malformed requests to `/slack/events` are refused with 400/401/413, never a 500 and a traceback."""

from __future__ import annotations

import http.client
import json
import logging
import time
from urllib.parse import urlsplit

import pytest
import redis

from tests.standins.slack_events import mention
from tests.standins.slack_fixtures import RunningBot, bot, slack_api  # noqa: F401
from workers.runs.store import RunStore

MAX_BODY_BYTES = 1 << 20  # 1 MiB, the documented cap


def _post(bot: RunningBot, body: bytes, content_type: str, headers: dict[str, str]) -> int:
    parts = urlsplit(bot.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("POST", parts.path, body=body, headers={"Content-Type": content_type, **headers})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _unsigned() -> dict[str, str]:
    return {"X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": "v0=" + "0" * 64}


@pytest.mark.parametrize(
    ("body", "content_type", "headers", "status"),
    [
        (b"{not json", "application/json", _unsigned(), 400),
        (b"\xff\xfe garbage", "application/x-www-form-urlencoded", _unsigned(), 400),
        (b"payload=%7Bnot+json", "application/x-www-form-urlencoded", _unsigned(), 400),
        (b"\xff\xfe", "application/json", _unsigned(), 400),
        (
            json.dumps(mention("hi")).encode(),
            "application/json",
            {"X-Slack-Request-Timestamp": "abc", "X-Slack-Signature": "v0=00"},
            401,
        ),
        (
            json.dumps(mention("hi")).encode(),
            "application/json",
            {"X-Slack-Request-Timestamp": "1700000000.5", "X-Slack-Signature": "v0=00"},
            401,
        ),
    ],
    ids=["bad-json", "form-not-utf8", "form-payload-not-json", "json-not-utf8", "timestamp-word", "timestamp-float"],
)
def test_a_malformed_unsigned_request_is_refused_without_a_traceback(
    bot: RunningBot,
    redis_conn: redis.Redis,
    caplog: pytest.LogCaptureFixture,
    body: bytes,
    content_type: str,
    headers: dict[str, str],
    status: int,
) -> None:
    caplog.set_level(logging.INFO)
    assert _post(bot, body, content_type, headers) == status
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert list(redis_conn.scan_iter("atlas:run:*")) == []


def test_a_body_over_the_cap_gets_413_before_anything_reads_it(bot: RunningBot) -> None:
    parts = urlsplit(bot.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.putrequest("POST", parts.path)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
        conn.endheaders()
        response = conn.getresponse()
        assert response.status == 413
    finally:
        conn.close()


def test_a_signed_request_still_reaches_bolt(bot: RunningBot, redis_conn: redis.Redis) -> None:
    reply = bot.send.event(mention("what does ORB-1202 mean?", ts="1700000100.000200"))
    assert reply.status == 200
    runs = [k for k in redis_conn.scan_iter("atlas:run:*") if k.count(b":") == 2]
    assert (
        len(runs) == 1
        and RunStore(redis_conn).load(runs[0].decode().split(":")[-1]).question == "what does ORB-1202 mean?"
    )


def test_a_question_cut_to_the_limit_is_told_to_the_asker_only(bot: RunningBot, redis_conn: redis.Redis) -> None:
    from bot.slack import wording
    from tests.support.processes import wait_for

    assert bot.send.event(mention("x" * 3990, ts="1700000200.000001")).status == 200  # within the limit: no note
    long_question = "why " + "does the lease expire " * 400  # about 8,800 characters
    assert bot.send.event(mention(long_question, ts="1700000300.000001")).status == 200
    questions = sorted(
        len(RunStore(redis_conn).load(k.decode().split(":")[-1]).question)
        for k in redis_conn.scan_iter("atlas:run:*")
        if k.count(b":") == 2
    )
    assert questions == [3990, 4000]
    [note] = wait_for(lambda: bot.api.ephemerals(), what="the note about the cut")
    assert note["user"] == "U0ALICE" and note["thread_ts"] == "1700000300.000001"
    assert note["text"] == wording.QUESTION_CUT.format(limit=4000) and "4,000" in note["text"]
