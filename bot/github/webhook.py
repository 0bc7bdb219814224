"""`POST /github/webhook`: verify, dedupe, enqueue; nothing slow before the answer.

The signature (`X-Hub-Signature-256`, HMAC-SHA256 of the raw body with `GITHUB_WEBHOOK_SECRET`)
is checked in constant time before the body is parsed; a bad or missing one is 401 and nothing
else happens. A body that is not a JSON object of the shape the worker reads is 400 with why
(bot/github/payloads.py), never a traceback or a job retried four times. A delivery id
(`X-GitHub-Delivery`) is claimed in Redis (SET NX with a TTL), so a redelivery is answered without a
second update. One URL serves every repository of the install (issue 38), routed by the payload's
`repository.full_name`; events for a repository not served are logged and ignored (202, as GitHub expects of
an App). A GitHub App's `installation_repositories` and `installation` change the set served and queue a new
repository's sync (bot/github/installation.py). The index
update runs as an RQ job (workers/jobs/github.py).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Callable, Iterable
from typing import Any

import redis
from rq import Queue, Retry

from atlas import served_repos
from atlas.settings import Settings
from bot.body_limits import GITHUB_MAX_BODY as MAX_BODY
from bot.github import deliveries, installation, payloads
from workers.runs.job_names import APPLY_EVENT  # by name: the web process does not load the worker

log = logging.getLogger("atlas.bot.github")

EVENTS = ("issues", "issue_comment", "label", "push", "release")  # release: close-the-loop notices (workers/followup/)
DELIVERY_TTL_SECONDS = 7 * 24 * 3600
RETRY = Retry(
    max=4, interval=[30, 120, 600, 1800]
)  # a close-the-loop notice through a chat outage (workers/followup/notices.py)

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """True when `header` is `sha256=` + the HMAC-SHA256 of `body` with `secret`."""
    if not header or not header.isascii() or not header.startswith("sha256="):
        return False  # compare_digest takes ASCII text only: anything else is no signature of ours
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


def _enqueue(
    conn: redis.Redis, queue: Queue, event: str, payload: Any, delivery: str, fingerprint: str
) -> tuple[str, str]:
    """Claim the delivery id and queue the index update (with this process's settings fingerprint, which the
    triage run it may start carries); the HTTP status and text to answer with."""
    try:
        if delivery and not conn.set(f"atlas:github:delivery:{delivery}", "1", nx=True, ex=DELIVERY_TTL_SECONDS):
            return "200 OK", "duplicate delivery"
        queue.enqueue(
            APPLY_EVENT,
            event,
            payload,
            fingerprint,
            job_timeout=300,
            result_ttl=600,
            failure_ttl=DELIVERY_TTL_SECONDS,
            retry=RETRY,
        )  # a failed one is kept a week, not forever
    except redis.RedisError:
        log.warning("GitHub webhook %s not queued: Redis unavailable (the periodic sync will catch up)", delivery)
        if delivery:
            try:
                conn.delete(f"atlas:github:delivery:{delivery}")
            except redis.RedisError:
                pass
        return "503 Service Unavailable", "try again"
    return "202 Accepted", "queued"


def _installation(conn: redis.Redis, queue: Queue, settings: Settings, event: str, payload: Any) -> tuple[str, str]:
    """An App installation's repositories changed: the set served changes for every process (installation.py)."""
    try:
        return "200 OK", installation.handle(conn, queue, settings.repos, event, payload)
    except redis.RedisError:
        log.warning("GitHub webhook: installation change not kept, Redis unavailable")
        return "503 Service Unavailable", "try again"


def handler(settings: Settings, conn: redis.Redis) -> Callable[[dict[str, Any], Callable[..., Any]], list[bytes]]:
    """The WSGI handler of the webhook path."""
    gh = settings.github
    queue = Queue(settings.queue_name, connection=conn)

    def reply(start_response: Callable[..., Any], status: str, text: str) -> list[bytes]:
        start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
        return [text.encode() + b"\n"]

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        if environ.get("REQUEST_METHOD") != "POST":
            return reply(start_response, "405 Method Not Allowed", "POST only")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY:
            return reply(start_response, "413 Payload Too Large", "too large")
        body = environ["wsgi.input"].read(length) if length else b""
        if gh is None or not gh.webhook_secret:
            log.warning("GitHub webhook refused: GITHUB_WEBHOOK_SECRET or ATLAS_GITHUB_REPO is not set")
            return reply(start_response, "401 Unauthorized", "not configured")
        if not signature_ok(gh.webhook_secret, body, environ.get("HTTP_X_HUB_SIGNATURE_256")):
            log.warning("GitHub webhook refused: bad or missing X-Hub-Signature-256")
            return reply(start_response, "401 Unauthorized", "bad signature")
        event = environ.get("HTTP_X_GITHUB_EVENT", "")
        delivery = environ.get("HTTP_X_GITHUB_DELIVERY", "")
        try:
            payload = payloads.parse(body)
            if event == "ping":
                return reply(start_response, "200 OK", "pong")
            if event in ("installation", "installation_repositories"):
                return reply(start_response, *_installation(conn, queue, settings, event, payload))
            if event not in EVENTS:  # an App's other installation events carry no repository: nothing to check
                return reply(start_response, "202 Accepted", f"ignored: {event}")
            payloads.check(event, payload)  # the job never sees a field of the wrong type
            full_name = str(payload["repository"]["full_name"])
            if served_repos.serving(conn, settings.repos, full_name) is None:
                log.warning("GitHub webhook %s for %s ignored: Atlas does not serve it", delivery, full_name)
                return reply(start_response, "202 Accepted", "ignored: another repository")
        except payloads.Malformed as exc:
            log.warning("GitHub webhook %s refused: %s", delivery, exc)
            return reply(start_response, "400 Bad Request", str(exc))
        status, text = _enqueue(conn, queue, event, payload, delivery, settings.fingerprint)
        deliveries.note(conn, delivery, event, f"{status.split()[0]} {text}")  # the console's Health page
        return reply(start_response, status, text)

    return application
