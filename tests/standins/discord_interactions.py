"""Discord's side of the interactions endpoint: signed POSTs with a test Ed25519 key, payloads
shaped like Discord's, and each response checked against the spec's interaction callback schema
(when the description is present)."""

from __future__ import annotations

import itertools
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from nacl.signing import SigningKey

from tests.standins.discord_api import APPLICATION_ID, GUILD_ID
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

    def __init__(self, url: str) -> None:
        self.url = url
        self.spec = Spec.load()
        self.problems: list[str] = []

    def send(self, payload: dict[str, Any], *, key: SigningKey = SIGNING_KEY, tamper: bool = False) -> Reply:
        body = json.dumps(payload).encode()
        timestamp = str(int(time.time()))
        signature = sign(body, timestamp, key)
        if tamper:
            body = body.replace(b'"type": ', b'"type":  ', 1)
        request = urllib.request.Request(self.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "X-Signature-Ed25519": signature, "X-Signature-Timestamp": timestamp,
            "User-Agent": "Discord-Interactions/1.0 (+https://discord.com)"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                reply = Reply(response.status, json.loads(response.read() or b"{}"))
        except urllib.error.HTTPError as exc:
            return Reply(exc.code, json.loads(exc.read() or b"{}"))
        if self.spec is not None and reply.status == 200:
            path = f"/interactions/{payload.get('id', '1')}/{payload.get('token', 't')}/callback"
            self.problems.extend(self.spec.problems("POST", path, reply.body))
        return reply


def member(user_id: str, *, roles: tuple[str, ...] = (), permissions: int = 0, name: str = "someone") -> dict[str, Any]:
    return {"user": {"id": user_id, "username": name, "discriminator": "0"}, "roles": list(roles),
            "permissions": str(permissions)}


def _base(kind: int, who: dict[str, Any], channel: str, ident: str | None) -> dict[str, Any]:
    ident = ident or next_id()
    return {"id": ident, "application_id": APPLICATION_ID, "type": kind, "token": f"tok-{ident}", "version": 1,
            "guild_id": GUILD_ID, "channel_id": channel, "member": who}


def ping() -> dict[str, Any]:
    return {"id": next_id(), "application_id": APPLICATION_ID, "type": 1, "token": "tok-ping", "version": 1}


def ask(question: str, who: dict[str, Any], *, channel: str = CHANNEL_ID, ident: str | None = None) -> dict[str, Any]:
    payload = _base(2, who, channel, ident)
    payload["data"] = {"id": "1", "name": "atlas", "type": 1, "options": [
        {"type": 1, "name": "ask", "options": [{"type": 3, "name": "question", "value": question}]}]}
    return payload


def lookup(command: str, sub: str, who: dict[str, Any], **values: Any) -> dict[str, Any]:
    payload = _base(2, who, CHANNEL_ID, None)
    options = [{"type": 4 if k == "number" else 3, "name": k, "value": v} for k, v in values.items()]
    payload["data"] = {"id": "2", "name": command, "type": 1, "options": [{"type": 1, "name": sub, "options": options}]}
    return payload


def click(custom_id: str, who: dict[str, Any], *, channel: str = CHANNEL_ID, message: dict[str, Any] | None = None) -> dict[str, Any]:
    payload = _base(3, who, channel, None)
    payload["data"] = {"custom_id": custom_id, "component_type": 2}
    payload["message"] = message or {"id": next_id(), "channel_id": channel, "content": ""}
    return payload
