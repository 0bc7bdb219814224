"""What Slack sends to the app: signed Events API, slash-command and interactivity requests.

Signed exactly as Slack signs them (v0 HMAC-SHA256 of `v0:timestamp:body`), checked by Bolt's own
verifier on the other end. Bodies follow Slack's payload shapes for the fields Atlas reads.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import itertools
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from tests.standins.slack_api import BOT_USER, TEAM

SECRET = "test-signing-secret"
_ids = itertools.count(1)


@dataclass(frozen=True)
class Reply:
    status: int
    body: str
    headers: dict[str, str]

    def json(self) -> Any:
        return json.loads(self.body)


def sign(secret: str, timestamp: int, body: str) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


class SlackSender:
    """Posts signed requests to the app's `/slack/events` URL over one keep-alive connection per call."""

    def __init__(self, url: str, secret: str = SECRET) -> None:
        self.url = url
        self.secret = secret

    def post(
        self,
        body: str,
        content_type: str,
        *,
        retry_num: int | None = None,
        timestamp: int | None = None,
        signature: str | None = None,
        timeout: float = 10.0,
    ) -> Reply:
        stamp = int(time.time()) if timestamp is None else timestamp
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(stamp),
            "X-Slack-Signature": signature or sign(self.secret, stamp, body),
        }
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        parts = urlsplit(self.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        try:
            conn.request("POST", parts.path, body=body.encode(), headers=headers)
            response = conn.getresponse()
            return Reply(response.status, response.read().decode(), {k.lower(): v for k, v in response.getheaders()})
        finally:
            conn.close()

    def event(self, payload: dict[str, Any], **kwargs: Any) -> Reply:
        return self.post(json.dumps(payload), "application/json", **kwargs)

    def form(self, fields: dict[str, str], **kwargs: Any) -> Reply:
        return self.post(urlencode(fields), "application/x-www-form-urlencoded", **kwargs)

    def interaction(self, payload: dict[str, Any], **kwargs: Any) -> Reply:
        return self.form({"payload": json.dumps(payload)}, **kwargs)


def event_id() -> str:
    return f"Ev{next(_ids):08d}"


def mention(
    text: str,
    *,
    channel: str = "C0GENERAL",
    user: str = "U0ALICE",
    ts: str | None = None,
    thread_ts: str | None = None,
    eid: str | None = None,
    bot_id: str | None = None,
) -> dict[str, Any]:
    """An `app_mention` event callback, as Slack delivers it over HTTP."""
    ts = ts or f"{time.time():.6f}"
    event: dict[str, Any] = {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": TEAM,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    if bot_id:
        event["bot_id"] = bot_id
    return _callback(event, eid)


def direct_message(
    text: str,
    *,
    channel: str = "D0ALICE",
    user: str = "U0ALICE",
    ts: str | None = None,
    eid: str | None = None,
    subtype: str | None = None,
    bot_id: str | None = None,
    thread_ts: str | None = None,
) -> dict[str, Any]:
    """A `message` event in a DM (channel_type im)."""
    return channel_message(
        text,
        channel=channel,
        user=user,
        ts=ts,
        thread_ts=thread_ts,
        eid=eid,
        subtype=subtype,
        bot_id=bot_id,
        channel_type="im",
    )


def channel_message(
    text: str,
    *,
    channel: str,
    user: str = "U0ALICE",
    ts: str | None = None,
    thread_ts: str | None = None,
    eid: str | None = None,
    subtype: str | None = None,
    bot_id: str | None = None,
    channel_type: str = "channel",
) -> dict[str, Any]:
    """A `message` event in a channel (`message.channels`; `channel_type` "group": `message.groups`, "im": a DM). A
    bot's message carries `bot_id` (and `subtype` "bot_message" for a classic bot); an edit is `message_changed`."""
    ts = ts or f"{time.time():.6f}"
    event: dict[str, Any] = {
        "type": "message",
        "channel_type": channel_type,
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
        "team": TEAM,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    if subtype:
        event["subtype"] = subtype
    if bot_id:
        event["bot_id"] = bot_id
        event["bot_profile"] = {"id": bot_id, "name": "a bot", "team_id": TEAM}
    return _callback(event, eid)


def reaction_added(
    reaction: str, *, channel: str, ts: str, user: str = "U0ALICE", item_user: str = BOT_USER, eid: str | None = None
) -> dict[str, Any]:
    """A `reaction_added` event callback: `user` reacted with `reaction` to the message `ts` in `channel`."""
    now = f"{time.time():.6f}"
    event: dict[str, Any] = {
        "type": "reaction_added",
        "user": user,
        "reaction": reaction,
        "item_user": item_user,
        "item": {"type": "message", "channel": channel, "ts": ts},
        "event_ts": now,
    }
    return _callback(event, eid)


def assistant_thread_started(
    *,
    channel: str = "D0ALICE",
    thread_ts: str,
    user: str = "U0ALICE",
    context_channel: str | None = "C0GENERAL",
    eid: str | None = None,
) -> dict[str, Any]:
    """`assistant_thread_started`: the person opened the app's split view (see SlackAPI.open_assistant_thread)."""
    return _callback(
        {
            "type": "assistant_thread_started",
            "assistant_thread": _assistant_thread(channel, thread_ts, user, context_channel),
            "event_ts": f"{time.time():.6f}",
        },
        eid,
    )


def assistant_thread_context_changed(
    *, channel: str = "D0ALICE", thread_ts: str, user: str = "U0ALICE", context_channel: str, eid: str | None = None
) -> dict[str, Any]:
    """`assistant_thread_context_changed`: the person moved to another channel with the thread open."""
    return _callback(
        {
            "type": "assistant_thread_context_changed",
            "assistant_thread": _assistant_thread(channel, thread_ts, user, context_channel),
            "event_ts": f"{time.time():.6f}",
        },
        eid,
    )


def assistant_message(
    text: str,
    *,
    thread_ts: str,
    channel: str = "D0ALICE",
    user: str = "U0ALICE",
    ts: str | None = None,
    eid: str | None = None,
) -> dict[str, Any]:
    """A message the person types (or a suggested prompt they pick) in an assistant thread: a DM reply."""
    return direct_message(text, channel=channel, user=user, ts=ts, eid=eid, thread_ts=thread_ts)


def _assistant_thread(channel: str, thread_ts: str, user: str, context_channel: str | None) -> dict[str, Any]:
    context: dict[str, Any] = {"team_id": TEAM, "enterprise_id": None}
    if context_channel:
        context["channel_id"] = context_channel
    return {"user_id": user, "context": context, "channel_id": channel, "thread_ts": thread_ts}


def _callback(event: dict[str, Any], eid: str | None) -> dict[str, Any]:
    return {
        "token": "legacy-verification-token",
        "team_id": TEAM,
        "api_app_id": "A0ATLAS",
        "event": event,
        "type": "event_callback",
        "event_id": eid or event_id(),
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True, "is_enterprise_install": False}],
        "is_ext_shared_channel": False,
    }
