"""A small synchronous client for Discord's REST API, for worker jobs and `atlas discord register`.

Rate limits are honoured as Discord describes them: a route (method + path template) belongs to the
bucket Discord names in `X-RateLimit-Bucket` (several routes may share one), and each bucket is
counted per major parameter (the channel, the guild, or the webhook's id and token). A bucket
remembers `X-RateLimit-Remaining` / `X-RateLimit-Reset-After`, and a request to an exhausted one
waits for the reset first; a 429 waits `retry_after` (the bucket's, or with `X-RateLimit-Global` /
`X-RateLimit-Scope: global` every route's) and is retried. Interaction tokens are secrets: they are
kept only hashed in bucket keys and never logged (routes are logged as templates). Creating calls (POST) are retried
only on 429, where Discord did not act; edits (PATCH, PUT) and reads also on 5xx and dropped connections.
Every message body gets `allowed_mentions: {"parse": []}` unless it sets its own.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from atlas.errors import AtlasError
from atlas.text import clip
from bot.discord.views.limits import CONTENT_LIMIT

log = logging.getLogger("atlas.discord.rest")

API_URL = "https://discord.com/api/v10"
USER_AGENT = "DiscordBot (https://github.com/atlas-maintainer-bot, 0.1)"
TIMEOUT_SECONDS = 10.0
RATE_LIMIT_RETRIES = 3
SERVER_ERROR_RETRIES = 2
MAX_WAIT_SECONDS = 60.0  # a longer retry_after is an outage: fail and let RQ's retry come back later
NO_MENTIONS: dict[str, Any] = {"parse": []}
THREAD_ARCHIVED = 50083
_MAJOR = re.compile(r"^/(channels|guilds)/(\d+)")
_WEBHOOK = re.compile(r"^/webhooks/(\d+)/([^/]+)")
_ID = re.compile(r"/\d{5,}")


class DiscordError(AtlasError):
    """Discord refused a request (or could not be reached: status 0). `code` is Discord's JSON error code."""

    def __init__(self, status: int, code: int | None = None, message: str = "") -> None:
        super().__init__(f"Discord answered {status} (code {code}): {message[:200]}")
        self.status, self.code = status, code


@dataclass
class _Bucket:
    remaining: int = 1
    reset_at: float = 0.0


@dataclass
class Limits:
    """Rate-limit state shared by every client of one process (Discord counts per bot token): which
    bucket each route is in, and each (bucket, major parameter)'s remaining requests."""

    buckets: dict[str, _Bucket] = field(default_factory=dict)
    routes: dict[str, str] = field(default_factory=dict)  # route template -> Discord's bucket hash
    global_until: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def key(self, route: Route) -> str:
        """The bucket's hash once Discord has named it (else the route itself), with the major parameter."""
        with self.lock:
            return f"{self.routes.get(route.template, route.template)} {route.major}"

    def wait_time(self, route: Route, now: float) -> float:
        key = self.key(route)
        with self.lock:
            bucket = self.buckets.get(key)
            wait = max(self.global_until - now, 0.0)
            if bucket and bucket.remaining <= 0 and bucket.reset_at > now:
                wait = max(wait, bucket.reset_at - now)
            return wait

    def update(self, route: Route, headers: Any, now: float) -> None:
        bucket_hash = headers.get("X-RateLimit-Bucket")
        if bucket_hash:
            with self.lock:
                self.routes[route.template] = str(bucket_hash)
        remaining, reset_after = headers.get("X-RateLimit-Remaining"), headers.get("X-RateLimit-Reset-After")
        if remaining is None or reset_after is None:
            return
        key = self.key(route)
        with self.lock:
            self.buckets[key] = _Bucket(int(float(remaining)), now + float(reset_after))


@dataclass(frozen=True)
class Route:
    """`template` (`PATCH /webhooks/:id/:token/messages/@original`: safe to log) and the major parameter
    (`channel 123`, `webhook 1/<hash of the token>`)."""

    template: str
    major: str


def fit_content(payload: Any) -> Any:
    """The last guard before a message leaves: content within Discord's limit. The renderers keep to it;
    one that did not is a bug, clipped and logged rather than refused by Discord (and the message lost)."""
    content = payload.get("content") if isinstance(payload, dict) else None
    if not isinstance(content, str) or len(content) <= CONTENT_LIMIT:
        return payload
    log.warning(
        "a message of %d characters clipped to Discord's %d (a bug: please report it)", len(content), CONTENT_LIMIT
    )
    return {**payload, "content": clip(content, CONTENT_LIMIT)}


def route(method: str, path: str) -> Route:
    """A request's route: ids folded out of the path, the major parameter kept apart (a token only hashed)."""
    path = path.split("?", 1)[0]
    webhook = _WEBHOOK.match(path)
    if webhook:
        token_hash = hashlib.sha256(webhook.group(2).encode()).hexdigest()[:16]
        return Route(
            f"{method} {_ID.sub('/:id', '/webhooks/:id/:token' + path[webhook.end() :])}",
            f"webhook {webhook.group(1)}/{token_hash}",
        )
    major = _MAJOR.match(path)
    return Route(f"{method} {_ID.sub('/:id', path)}", f"{major.group(1)[:-1]} {major.group(2)}" if major else "-")


class DiscordREST:
    """`request(method, path, body)` against the configured base URL with the bot token."""

    def __init__(
        self,
        token: str | None,
        base_url: str | None = None,
        *,
        limits: Limits | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token = token
        self.base_url = (base_url or API_URL).rstrip("/")
        self.limits = limits or Limits()
        self.sleep, self.clock = sleep, clock

    def request(
        self, method: str, path: str, body: Any = None, *, auth: bool = True, repeatable: bool | None = None
    ) -> Any:
        """Send one request, waiting out rate limits; returns the decoded JSON (None for 204). A dropped connection
        or a 5xx is tried again where that cannot do a thing twice (`repeatable`; by default every method but POST)."""
        where = route(method, path)
        if isinstance(body, dict) and ("content" in body or "components" in body or "embeds" in body):
            body = fit_content({"allowed_mentions": NO_MENTIONS, **body})
        data = json.dumps(body).encode() if body is not None else None
        repeatable = method != "POST" if repeatable is None else repeatable
        limited = failed = 0
        while True:
            wait = self.limits.wait_time(where, self.clock())
            if wait > 0:
                self.sleep(wait)
            status, headers, payload = self._send(method, path, data, auth)
            self.limits.update(where, headers, self.clock())
            if status == 429 and limited < RATE_LIMIT_RETRIES:
                limited += 1
                retry_after = float((payload or {}).get("retry_after") or headers.get("Retry-After") or 1)
                if retry_after > MAX_WAIT_SECONDS:
                    raise DiscordError(429, None, f"retry_after {retry_after}s")
                scope = headers.get("X-RateLimit-Scope") or ("global" if headers.get("X-RateLimit-Global") else "user")
                if scope == "global" or (payload or {}).get("global"):
                    with self.limits.lock:
                        self.limits.global_until = self.clock() + retry_after
                log.info("rate limited on %s (%s); retrying in %.2fs", where.template, scope, retry_after)
                self.sleep(retry_after)
                continue
            if (status == 0 or status >= 500) and repeatable and failed < SERVER_ERROR_RETRIES:
                failed += 1
                self.sleep(0.5 * failed)
                continue
            if status == 0 or status >= 400:
                code = (payload or {}).get("code") if isinstance(payload, dict) else None
                message = (payload or {}).get("message", "") if isinstance(payload, dict) else ""
                raise DiscordError(status, code, str(message))
            return payload

    def _send(self, method: str, path: str, data: bytes | None, auth: bool) -> tuple[int, Any, Any]:
        headers = {"User-Agent": USER_AGENT, "Content-Type": "application/json"}
        if auth and self.token:
            headers["Authorization"] = f"Bot {self.token}"
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                raw = response.read()
                return response.status, response.headers, json.loads(raw) if raw else None
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                payload = json.loads(raw) if raw else None
            except ValueError:
                payload = None
            return exc.code, exc.headers, payload
        except (urllib.error.URLError, OSError) as exc:
            log.warning("Discord unreachable on %s: %s", route(method, path).template, type(exc).__name__)
            return 0, {}, None

    # -- the calls Atlas makes -----------------------------------------------------------------

    def create_message(self, channel_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        return cast(dict[str, Any], self.request("POST", f"/channels/{channel_id}/messages", payload))

    def edit_message(self, channel_id: str, message_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        return cast(
            dict[str, Any],
            self._in_thread(
                channel_id, lambda: self.request("PATCH", f"/channels/{channel_id}/messages/{message_id}", payload)
            ),
        )

    def delete_message(self, channel_id: str, message_id: str) -> None:
        self._in_thread(channel_id, lambda: self.request("DELETE", f"/channels/{channel_id}/messages/{message_id}"))

    def _in_thread(self, channel_id: str, call: Callable[[], Any]) -> Any:
        """A thread archives after its auto-archive duration without messages (a day: as long as an approval
        may wait), and a message in an archived thread cannot be edited (50083): unarchive it, try once more."""
        try:
            return call()
        except DiscordError as exc:
            if exc.code != THREAD_ARCHIVED:
                raise
        log.info("thread %s is archived; unarchiving it to edit a message there", channel_id)
        self.request("PATCH", f"/channels/{channel_id}", {"archived": False})
        return call()

    def start_thread(self, channel_id: str, message_id: str, name: str) -> dict[str, Any]:
        """A message has one thread at most: a second try after a dropped connection that had started it is
        refused with 160004 (the caller's "already exists"), so this POST is tried again like a PATCH."""
        return cast(
            dict[str, Any],
            self.request(
                "POST",
                f"/channels/{channel_id}/messages/{message_id}/threads",
                {"name": name, "auto_archive_duration": 1440},
                repeatable=True,
            ),
        )

    def edit_original(self, application_id: str, token: str, payload: dict[str, Any]) -> dict[str, Any]:
        return cast(
            dict[str, Any],
            self.request("PATCH", f"/webhooks/{application_id}/{token}/messages/@original", payload, auth=False),
        )

    def followup(self, application_id: str, token: str, payload: dict[str, Any]) -> dict[str, Any]:
        return cast(
            dict[str, Any], self.request("POST", f"/webhooks/{application_id}/{token}?wait=true", payload, auth=False)
        )

    def edit_followup(
        self, application_id: str, token: str, message_id: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        return cast(
            dict[str, Any],
            self.request("PATCH", f"/webhooks/{application_id}/{token}/messages/{message_id}", payload, auth=False),
        )

    def delete_followup(self, application_id: str, token: str, message_id: str) -> None:
        self.request("DELETE", f"/webhooks/{application_id}/{token}/messages/{message_id}", auth=False)

    def put_commands(
        self, application_id: str, commands: list[dict[str, Any]], guild_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Bulk overwrite: the commands afterwards are exactly these (idempotent)."""
        where = f"/guilds/{guild_id}" if guild_id else ""
        return cast(
            list[dict[str, Any]], self.request("PUT", f"/applications/{application_id}{where}/commands", commands)
        )


_shared_limits = Limits()


def rest_client(settings: Any) -> DiscordREST:
    """The process's client for the configured bot; rate-limit state is shared by every job here."""
    return DiscordREST(settings.discord_bot_token, settings.discord_api_url, limits=_shared_limits)
