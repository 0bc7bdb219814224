"""A local stand-in for Discord's Gateway: a websocket speaking the Gateway protocol, so the real
library (hikari) connects, identifies, heartbeats and resumes against it.

HELLO on connect; IDENTIFY -> READY (with `session_id` and `resume_gateway_url`); HEARTBEAT ->
HEARTBEAT_ACK; RESUME -> the dispatches after the client's last sequence, then RESUMED. Dispatches
are numbered and kept, so a RESUME after `drop()` replays what the client missed. The transport is
zlib-stream compressed when the client asks for it (hikari does by default), as Discord's is.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.standins.discord_api import APPLICATION_ID, BOT_USER_ID, GUILD_ID

HELLO, HEARTBEAT, IDENTIFY, RESUME, HEARTBEAT_ACK, DISPATCH, INVALID_SESSION = 10, 1, 2, 6, 11, 0, 9
HEARTBEAT_INTERVAL_MS = 1000
ZLIB_SUFFIX = b"\x00\x00\xff\xff"


@dataclass
class Connection:
    ws: web.WebSocketResponse
    compressor: Any | None
    identified: bool = False


@dataclass
class Received:
    """What clients sent: op codes in order, and the IDENTIFY/RESUME payloads."""

    ops: list[int] = field(default_factory=list)
    identifies: list[dict[str, Any]] = field(default_factory=list)
    resumes: list[dict[str, Any]] = field(default_factory=list)


class GatewayStandin:
    """Start it, hand `url` to the REST stand-in's `/gateway/bot`, then `message_create(...)`, `drop()`."""

    def __init__(self) -> None:
        self.session_id = "standin-session-1"
        self.received = Received()
        self.log: list[dict[str, Any]] = []  # every dispatch, with its sequence number
        self.heartbeats = 0
        self._seq = itertools.count(1)
        self._conn: Connection | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="gateway-standin", daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.ready = threading.Event()  # set once a client is identified or resumed

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> GatewayStandin:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def __enter__(self) -> GatewayStandin:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._serve)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    # -- driving it from tests -----------------------------------------------------------------

    def dispatch(self, name: str, data: dict[str, Any]) -> int:
        """Number and keep a dispatch; send it if a client is connected (else it waits for a RESUME)."""
        return asyncio.run_coroutine_threadsafe(self._dispatch(name, data), self._loop).result(10)

    def message_create(self, data: dict[str, Any]) -> int:
        return self.dispatch("MESSAGE_CREATE", data)

    def drop(self) -> None:
        """Close the connection as a network fault would (4000: the client reconnects and resumes)."""
        self.ready.clear()
        asyncio.run_coroutine_threadsafe(self._drop(), self._loop).result(10)

    # -- the protocol --------------------------------------------------------------------------

    async def _dispatch(self, name: str, data: dict[str, Any]) -> int:
        seq = next(self._seq)
        payload = {"op": DISPATCH, "t": name, "s": seq, "d": data}
        self.log.append(payload)
        if self._conn is not None and self._conn.identified:
            await self._send(self._conn, payload)
        return seq

    async def _drop(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await conn.ws.close(code=4000, message=b"dropped by the stand-in")

    async def _send(self, conn: Connection, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        if conn.compressor is not None:
            await conn.ws.send_bytes(conn.compressor.compress(raw) + conn.compressor.flush(zlib.Z_SYNC_FLUSH))
        else:
            await conn.ws.send_str(raw.decode())

    async def _serve(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        compressor = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        conn = Connection(ws, compressor)
        self._conn = conn
        await self._send(conn, {"op": HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}})
        async for msg in ws:
            if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):  # Discord takes JSON in either frame type
                continue
            payload = json.loads(msg.data)
            op = payload.get("op")
            self.received.ops.append(op)
            if op == HEARTBEAT:
                self.heartbeats += 1
                await self._send(conn, {"op": HEARTBEAT_ACK})
            elif op == IDENTIFY:
                self.received.identifies.append(payload["d"])
                conn.identified = True
                await self._ready(conn)
            elif op == RESUME:
                self.received.resumes.append(payload["d"])
                await self._resume(conn, payload["d"])
        return ws

    async def _ready(self, conn: Connection) -> None:
        user = {
            "id": BOT_USER_ID,
            "username": "atlas",
            "discriminator": "0",
            "global_name": "Atlas",
            "avatar": None,
            "bot": True,
            "system": False,
            "mfa_enabled": False,
            "flags": 0,
            "verified": True,
        }
        data = {
            "v": 10,
            "user": user,
            "guilds": [{"id": GUILD_ID, "unavailable": True}],
            "session_id": self.session_id,
            "resume_gateway_url": self.url,
            "shard": [0, 1],
            "application": {"id": APPLICATION_ID, "flags": 0},
        }
        await self._dispatch("READY", data)
        self.ready.set()

    async def _resume(self, conn: Connection, data: dict[str, Any]) -> None:
        if data.get("session_id") != self.session_id:
            await self._send(conn, {"op": INVALID_SESSION, "d": False})
            return
        conn.identified = True
        for payload in [p for p in self.log if p["s"] > int(data.get("seq") or 0)]:
            await self._send(conn, payload)
        seq = next(self._seq)
        await self._send(conn, {"op": DISPATCH, "t": "RESUMED", "s": seq, "d": {}})
        self.log.append({"op": DISPATCH, "t": "RESUMED", "s": seq, "d": {}})
        self.ready.set()


def mention_payload(
    message_id: str, content: str, *, channel_id: str, author_id: str = "1500000000000000021", mentions_bot: bool = True
) -> dict[str, Any]:
    """A MESSAGE_CREATE in a guild channel, as Discord sends it to a bot without the message-content
    intent: the content is there because the message mentions the bot."""
    author = {"id": author_id, "username": "asker", "discriminator": "0", "global_name": "Asker", "avatar": None}
    bot = {
        "id": BOT_USER_ID,
        "username": "atlas",
        "discriminator": "0",
        "global_name": "Atlas",
        "avatar": None,
        "bot": True,
    }
    return {
        "id": message_id,
        "channel_id": channel_id,
        "guild_id": GUILD_ID,
        "author": author,
        "member": {"roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False, "mute": False, "flags": 0},
        "content": content,
        "timestamp": "2026-11-30T12:00:00.000000+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [bot] if mentions_bot else [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": False,
        "type": 0,
        "flags": 0,
        "components": [],
    }
