"""A local stand-in for Slack's Web API, reached through the real `WebClient` via `SLACK_API_URL`.

It records every call and answers like Slack: `{"ok": true, "ts": ...}`, `{"ok": false, "error":
...}` with HTTP 200, HTTP 429 with `Retry-After`, or a 5xx, each on demand per method. It keeps the
messages it was asked to post, update, stream or delete, so tests can read a thread as a user
would. Also serves `response_url`s (`/response/<name>`) for slash-command and button replies.

Checks it applies like Slack does: the bot token, known methods, required arguments, the
12,000-character cumulative limit of `markdown` blocks, 50 blocks per message, 40,000 characters of
text, and streaming: in a channel `chat.startStream` needs the recipient (`recipient_team_id`,
`recipient_user_id`), a stream keeps the content mode it started with (`markdown_text` or `chunks`,
else `streaming_mode_mismatch`), chunks must have Slack's shapes (`invalid_chunks`), appending to a
stopped stream fails, and a stream the person stopped (`stop_by_user`) refuses with `stopped_by_user`.

The assistant view: `open_assistant_thread` plays the person opening the app's split view (Slack
creates the thread's root message); `assistant.threads.setTitle` and `setSuggestedPrompts` work only
on such a thread (`invalid_thread_ts` otherwise), take their documented required arguments, and at
most four prompts, each with a `title` and a `message`; `setStatus` needs `channel_id`, `thread_ts`
and `status` (an empty status clears it) and at most ten `loading_messages`.

Sign in with Slack (`openid.connect.token`, `openid.connect.userInfo` and the browser's authorize page):
tests/standins/slack_openid.py, reached as `api.openid`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from tests.standins.loopback import LoopbackHTTP
from tests.standins.slack_chat import chat_call, history, replies
from tests.standins.slack_failures import Hold, Outage, Planned, ScriptedFailures
from tests.standins.slack_limits import HistoryTier, Triggers
from tests.standins.slack_openid import OpenID
from tests.standins.slack_people import member
from tests.standins.slack_rules import assistant_call, content, require, view_problem
from tests.standins.slack_wire import Handler

TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-test-token"
BOT_USER = "UATLAS"
BOT_ID = "BATLAS"
TEAM = "T0TEST"


@dataclass
class Call:
    """One request as the stand-in received it."""

    method: str
    args: dict[str, Any]
    status: int = 200
    reply: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.monotonic)


class SlackAPI(ScriptedFailures, LoopbackHTTP):
    """Start it, point `SLACK_API_URL` at `base_url`, read `calls` and `thread(...)` afterwards."""

    def __init__(
        self, *, token: str = TOKEN, streaming: bool = True, app_token: str = APP_TOKEN, context_actions: bool = True
    ) -> None:
        self.token = token
        self.context_actions = context_actions  # False: a place where Slack refuses the context_actions block
        self.app_token = app_token
        self.socket_url: str | None = None  # what apps.connections.open hands out (a SocketModeServer's URL)
        self.streaming = streaming
        self.calls: list[Call] = []
        self.responses: list[tuple[str, dict[str, Any]]] = []  # (response_url name, payload)
        self.messages: dict[tuple[str, str], dict[str, Any]] = {}  # (channel, ts) -> message
        self.users: dict[str, dict[str, Any]] = {}  # user id -> users.info's `user` object (see add_user)
        self.groups: dict[str, list[str]] = {}  # user group id -> member ids (usergroups.users.list)
        self.assistant_threads: dict[tuple[str, str], dict[str, Any]] = {}  # (channel, thread_ts) -> title, prompts
        self.stop_next_append = False  # see stop_at_next_append
        self.removed: set[str] = set()  # channels Atlas was removed from: chat.* there answers not_in_channel
        self.private: set[str] = set()  # private channels: conversations.info says is_private (D...: a direct message)
        self.openid = OpenID()  # Sign in with Slack (tests/standins/slack_openid.py)
        self.history = HistoryTier()  # the app's rate-limit tier for history reads (tests/standins/slack_limits.py)
        self.triggers = Triggers()  # trigger_ids issued with interactions, for views.open
        self._holds: list[Hold] = []
        self._plans: dict[str, deque[Planned]] = defaultdict(deque)
        self._outages: list[Outage] = []
        self._lock = threading.Lock()
        self._last_us = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/response/{name}"

    def env(self) -> dict[str, str]:
        return {"SLACK_API_URL": self.base_url, "SLACK_BOT_TOKEN": self.token}

    # -- the workspace's people -----------------------------------------------------------------

    def add_user(
        self, user: str, *, admin: bool = False, owner: bool = False, primary_owner: bool = False, deleted: bool = False
    ) -> None:
        """A member users.info knows, with Slack's role flags (a primary owner is also an owner and an admin)."""
        with self._lock:
            self.users[user] = member(
                user, TEAM, admin=admin, owner=owner, primary_owner=primary_owner, deleted=deleted
            )

    def said(self, channel: str, ts: str, user: str, text: str, thread_ts: str | None = None) -> None:
        """A person's message, as conversations.replies and .history show it (`user`, no `bot_id`)."""
        with self._lock:
            self.messages[(channel, ts)] = {"ts": ts, "thread_ts": thread_ts or ts, "text": text, "person": user}

    def add_group(self, group: str, members: list[str]) -> None:
        with self._lock:
            self.groups[group] = list(members)

    # -- reading what happened -----------------------------------------------------------------

    def calls_to(self, *methods: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method in methods]

    def thread(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """The bot's messages in a thread, oldest first (deleted ones left out)."""
        with self._lock:
            found = [m for (ch, _), m in self.messages.items() if ch == channel and m.get("thread_ts") == thread_ts]
        return sorted((m for m in found if not m.get("deleted") and not m.get("person")), key=lambda m: float(m["ts"]))

    def ephemerals(self) -> list[dict[str, Any]]:
        return [c.args for c in self.calls_to("chat.postEphemeral") if c.reply.get("ok")]

    # -- answering -----------------------------------------------------------------------------

    def handle(self, method: str, args: dict[str, Any], auth: str | None) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            held = next((h for h in self._holds if h.method == method and h.matches(args)), None)
            if held is not None:
                self._holds.remove(held)
        if held is not None:
            if held.processed:
                with self._lock:
                    self.calls.append(Call(method, args, 200, self._answer(method, args)))
            held.reached.set()
            held.release.wait(120)
            with self._lock:
                self.calls.append(Call(method, args, 503, {"ok": False, "error": "held"}))
            return 503, {"ok": False, "error": "held"}, {}
        with self._lock:
            down = self._in_outage(method, args)
            plan = Planned(status=down, error="service_unavailable") if down else None
            if plan is None and self._plans.get(method):
                plan = self._plans[method].popleft()
            if plan is None and (wait := self.history.refusal(method)) is not None:
                plan = Planned(status=429, error="ratelimited", retry_after=wait)
        headers: dict[str, str] = {}
        if plan is not None and plan.status != 200:
            if plan.retry_after is not None:
                headers["Retry-After"] = str(plan.retry_after)
            reply: dict[str, Any] = {"ok": False, "error": plan.error}
            status = plan.status
        elif plan is not None and plan.error is not None:
            reply, status = {"ok": False, "error": plan.error}, 200
        elif method == "apps.connections.open":
            ok = auth == f"Bearer {self.app_token}" and self.socket_url
            reply, status = (
                ({"ok": True, "url": self.socket_url} if ok else {"ok": False, "error": "invalid_auth"}),
                200,
            )
        elif method.startswith("openid.connect."):  # the app's credentials or the person's token, not the bot's
            reply, status = self.openid.call(method, args, auth), 200
        elif auth != f"Bearer {self.token}" and args.get("token") != self.token:
            reply, status = {"ok": False, "error": "invalid_auth"}, 200
        else:
            with self._lock:
                reply = self._answer(method, args)
            status = 200
        with self._lock:
            self.calls.append(Call(method, args, status, reply))
        return status, reply, headers

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://atlas-test.slack.com/",
                "team": "Atlas Test",
                "user": "atlas",
                "team_id": TEAM,
                "user_id": BOT_USER,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method == "users.info":
            problem = require(args, "user")
            if problem:
                return problem
            user = self.users.get(args["user"])
            return {"ok": True, "user": dict(user)} if user else {"ok": False, "error": "user_not_found"}
        if method == "usergroups.users.list":
            problem = require(args, "usergroup")
            if problem:
                return problem
            members = self.groups.get(args["usergroup"])
            return (
                {"ok": True, "users": list(members)}
                if members is not None
                else {"ok": False, "error": "no_such_subteam"}
            )
        if method.startswith("assistant.threads."):
            return self._assistant(method.removeprefix("assistant.threads."), args)
        if method == "chat.postEphemeral":
            return require(args, "channel", "user") or content(args) or {"ok": True, "message_ts": self.next_ts()}
        if method.startswith("chat."):
            return chat_call(self, method, args)
        if method == "conversations.history":
            return history(self.messages, self.history.paged(args))
        if method == "conversations.replies":
            return replies(self.messages, self.history.paged(args))
        if method == "conversations.info":  # the conversation object's type flags, as Slack documents them
            problem = require(args, "channel")
            if problem:
                return problem
            channel, im = str(args["channel"]), str(args["channel"]).startswith("D")
            private = channel in self.private
            return {
                "ok": True,
                "channel": {
                    "id": channel,
                    "is_channel": not im and not private,
                    "is_group": private,
                    "is_im": im,
                    "is_mpim": False,
                    "is_private": private or im,
                    "is_archived": False,
                },
            }
        if method == "views.open":
            return (
                require(args, "trigger_id", "view")
                or self.triggers.problem(str(args["trigger_id"]))
                or view_problem(args["view"])
                or {
                    "ok": True,
                    "view": {
                        **(json.loads(args["view"]) if isinstance(args["view"], str) else args["view"]),
                        "id": f"V{self.next_ts()}",
                    },
                }
            )
        return {"ok": False, "error": "unknown_method"}

    def _assistant(self, verb: str, args: dict[str, Any]) -> dict[str, Any]:
        return assistant_call(self.assistant_threads, verb, args)

    def open_assistant_thread(self, channel: str, thread_ts: str) -> None:
        """The person opens the app's split view: Slack creates the thread (and then sends
        `assistant_thread_started`, see slack_events.assistant_thread_started)."""
        with self._lock:
            self.assistant_threads[(channel, thread_ts)] = {
                "title": None,
                "prompts": [],
                "prompts_title": None,
                "status": None,
            }

    def next_ts(self) -> str:
        """A message's ts as Slack makes it: the time it was posted (epoch seconds, microseconds), unique and rising."""
        self._last_us = max(time.time_ns() // 1000, self._last_us + 1)
        return f"{self._last_us // 1_000_000}.{self._last_us % 1_000_000:06d}"

    def stop_by_user(self, channel: str, ts: str) -> None:
        """The person presses stop on a streaming message: Slack ends the stream and refuses further
        appends (and the stop) with `stopped_by_user`."""
        with self._lock:
            message = self.messages[(channel, ts)]
            message["streaming"] = False
            message["stopped_by_user"] = True

    def stop_at_next_append(self) -> None:
        """The person presses stop just before the next `chat.appendStream` reaches Slack."""
        with self._lock:
            self.stop_next_append = True

    def record_response(self, name: str, payload: dict[str, Any]) -> None:
        with self._lock:
            self.responses.append((name, payload))


SlackAPI.handler = Handler
SlackAPI.thread_name = "slack-standin"
