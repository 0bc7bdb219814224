"""A run in a thread of Slack's assistant view: the thread's title and the status line while it works.

Only for runs asked in a thread the bot recorded as an assistant thread (bot/slack/assistant_threads.py,
marked on the run by `attach_context`); mentions and DMs are left exactly as they are. The title comes from the thread's
first question; the status says what the run is doing ("is searching issues...") and changes only when that changes.
Both are cosmetic: a refusal from Slack or a Redis hiccup is logged, never raised, so the answer is unaffected.
"""

from __future__ import annotations

import logging
from typing import Any, assert_never

import redis
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError

from atlas.settings import Settings
from bot.slack import assistant_threads
from bot.slack.client import web_client
from bot.slack.progress import channel_of, thread_of
from bot.slack.views.status import status_args, thread_title
from workers.agent.events import Finished, InDoubt, Paused, RunEvent, StepStarted, ToolCalled
from workers.agent.ports import Reporter
from workers.messages.status import Idle, Status, Thinking, ThreadTitle, UsingTool
from workers.runs.state import RunState
from workers.runs.surfaces import SlackSurface

log = logging.getLogger("atlas.slack_assistant")


class AssistantThreadReporter(Reporter):
    """Titles the thread and keeps its status current. One instance per job."""

    def __init__(self, client: WebClient) -> None:
        self.client = client
        self._status: dict[str, Any] | None = None  # as last shown (rendered: two tools may read the same)

    @classmethod
    def for_settings(cls, settings: Settings, client: WebClient | None = None) -> AssistantThreadReporter:
        """`client`: the process's (repeatable calls: setTitle and setStatus only change what is shown); by default a
        new one."""
        return cls(client or web_client(settings))

    def event(self, run: RunState, event: RunEvent) -> None:
        if run.origin.kind != "slack" or not run.origin.channel or not SlackSurface.of(run).assistant_thread:
            return
        match event:
            case StepStarted(step=step):
                if step == 1 and not run.history:
                    self._call("setTitle", run, title=thread_title(ThreadTitle(run.question)))
                self._set_status(run, Thinking())
            case ToolCalled(name=name, state=state):
                if state == "started":
                    self._set_status(run, UsingTool(name))
            case Finished() | Paused():
                self._set_status(run, Idle())  # posting clears it too; this covers a post that came first
            case InDoubt():
                pass  # the thread gets the platform's notice; the status is not about it
            case _:
                assert_never(event)

    def _set_status(self, run: RunState, status: Status) -> None:
        shown = status_args(status)
        if shown == self._status:
            return
        if self._call("setStatus", run, **shown):
            self._status = shown

    def _call(self, method: str, run: RunState, **args: Any) -> bool:
        call = (
            self.client.assistant_threads_setTitle if method == "setTitle" else self.client.assistant_threads_setStatus
        )
        try:
            call(channel_id=channel_of(run), thread_ts=thread_of(run), **args)
            return True
        except SlackClientError as exc:
            log.info("run %s: assistant.threads.%s failed (%s)", run.id, method, type(exc).__name__)
            return False


def attach_context(conn: redis.Redis, run: RunState) -> None:
    """Before a run's first step: mark a run asked in an assistant thread as such (`assistant_thread`
    in its `SlackSurface`), and make the channel the person is looking at part of its context. Best effort:
    without Redis the run goes on as in a DM."""
    if run.origin.kind != "slack" or not run.origin.channel or run.items:
        return
    if not run.origin.channel.startswith("D"):  # assistant threads live in the app's DM (Slack: message.im events)
        return  # a channel's thread is never one: no lookup (one Redis command per run saved)
    try:
        thread = assistant_threads.find(conn, run.origin.channel, thread_of(run))
    except redis.RedisError:
        return
    if thread is None:
        return
    SlackSurface.of(run).assistant_thread = True
    run.context_channel = thread.context_channel
