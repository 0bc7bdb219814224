"""Discord's side of the interactions endpoint: signed POSTs with a test Ed25519 key, payloads
shaped like Discord's, and each response checked against the spec's interaction callback schema
(when the description is present) and Discord's 2,000-character content limit (a reply over it is
"This interaction failed" for the user). Given the REST stand-in, the sender issues each
interaction's token there: it lives 15 minutes, and dies at once when the ack took over 3 seconds."""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from nacl.signing import SigningKey

from tests.standins.discord_api import APPLICATION_ID, GUILD_ID, DiscordAPI
from tests.standins.discord_checks import CONTENT_LIMIT
from tests.standins.discord_spec import Spec

SIGNING_KEY = SigningKey(bytes(range(32)))  # a fixed test key: the tests' "Discord"
PUBLIC_KEY = SIGNING_KEY.verify_key.encode().hex()
CHANNEL_ID = "1300000000000000777"
_ids = itertools.count(1400000000000000000)


def next_id() -> str:
    return str(next(_ids))


def sign(body: bytes, timestamp: str, key: SigningKey = SIGNING_KEY) -> str:
    return key.sign(timestamp.encode() + body).signature.hex()


@dataclass
class Reply:
    status: int
    body: dict[str, Any]


class InteractionSender:
    """POSTs interactions to `url` the way Discord does; `problems` collects responses the spec rejects."""

    def __init__(self, url: str, api: DiscordAPI | None = None) -> None:
        self.url, self.api = url, api
        self.spec = Spec.load()
        self.problems: list[str] = []

    def send(
        self,
        payload: dict[str, Any],
        *,
        key: SigningKey = SIGNING_KEY,
        tamper: bool = False,
        signed_at: float | None = None,
        ack_late_by: float = 0.0,
    ) -> Reply:
        """POST one interaction; `signed_at` replays it with an old timestamp, `ack_late_by` adds network
        delay to the ack (over 3 seconds in all, Discord shows "interaction failed" and kills the token)."""
        body = json.dumps(payload).encode()
        timestamp = str(int(time.time() if signed_at is None else signed_at))
        started = time.monotonic()
        signature = sign(body, timestamp, key)
        if tamper:
            body = body.replace(b'"type": ', b'"type":  ', 1)
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "X-Signature-Ed25519": signature,
                "X-Signature-Timestamp": timestamp,
                "User-Agent": "Discord-Interactions/1.0 (+https://discord.com)",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                reply = Reply(response.status, json.loads(response.read() or b"{}"))
        except urllib.error.HTTPError as exc:
            return Reply(exc.code, json.loads(exc.read() or b"{}"))
        if self.api is not None and payload.get("token") and payload.get("type") != 1:
            self.api.issue_token(
                str(payload["token"]),
                at=self.api.now() - (time.monotonic() - started),
                ack_seconds=time.monotonic() - started + ack_late_by,
            )
        content = (reply.body.get("data") or {}).get("content") if isinstance(reply.body, dict) else None
        if isinstance(content, str) and len(content) > CONTENT_LIMIT:
            self.problems.append(
                f"interaction reply: content of {len(content)} characters: Must be {CONTENT_LIMIT} or fewer in length."
            )
        if self.spec is not None and reply.status == 200:
            path = f"/interactions/{payload.get('id', '1')}/{payload.get('token', 't')}/callback"
            self.problems.extend(self.spec.problems("POST", path, reply.body))
        return reply


def member(user_id: str, *, roles: tuple[str, ...] = (), permissions: int = 0, name: str = "someone") -> dict[str, Any]:
    return {
        "user": {"id": user_id, "username": name, "discriminator": "0"},
        "roles": list(roles),
        "permissions": str(permissions),
    }


def _base(kind: int, who: dict[str, Any], channel: str, ident: str | None) -> dict[str, Any]:
    ident = ident or next_id()
    return {
        "id": ident,
        "application_id": APPLICATION_ID,
        "type": kind,
        "token": f"tok-{ident}",
        "version": 1,
        "guild_id": GUILD_ID,
        "channel_id": channel,
        "member": who,
    }


def ping() -> dict[str, Any]:
    return {"id": next_id(), "application_id": APPLICATION_ID, "type": 1, "token": "tok-ping", "version": 1}


def ask(question: str, who: dict[str, Any], *, channel: str = CHANNEL_ID, ident: str | None = None) -> dict[str, Any]:
    payload = _base(2, who, channel, ident)
    payload["data"] = {
        "id": "1",
        "name": "atlas",
        "type": 1,
        "options": [{"type": 1, "name": "ask", "options": [{"type": 3, "name": "question", "value": question}]}],
    }
    return payload


def lookup(command: str, sub: str, who: dict[str, Any], **values: Any) -> dict[str, Any]:
    payload = _base(2, who, CHANNEL_ID, None)
    options = [{"type": 4 if k == "number" else 3, "name": k, "value": v} for k, v in values.items()]
    payload["data"] = {"id": "2", "name": command, "type": 1, "options": [{"type": 1, "name": sub, "options": options}]}
    return payload


def click(
    custom_id: str, who: dict[str, Any], *, channel: str = CHANNEL_ID, message: dict[str, Any] | None = None
) -> dict[str, Any]:
    payload = _base(3, who, channel, None)
    payload["data"] = {"custom_id": custom_id, "component_type": 2}
    payload["message"] = message or {"id": next_id(), "channel_id": channel, "content": ""}
    return payload


def select(
    custom_id: str,
    values: list[str],
    who: dict[str, Any],
    *,
    channel: str = CHANNEL_ID,
    message: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A MESSAGE_COMPONENT interaction for a string select (component type 3) with `values` chosen."""
    payload = click(custom_id, who, channel=channel, message=message)
    payload["data"] = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
    return payload


def modal_submit(
    custom_id: str,
    inputs: dict[str, str],
    who: dict[str, Any],
    *,
    channel: str = CHANNEL_ID,
    message: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A MODAL_SUBMIT interaction (type 5) for a modal opened from a button on `message`: each text input's value."""
    payload = _base(5, who, channel, None)
    payload["data"] = {
        "custom_id": custom_id,
        "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": name, "value": value}]}
            for name, value in inputs.items()
        ],
    }
    if message is not None:
        payload["message"] = message
    return payload
