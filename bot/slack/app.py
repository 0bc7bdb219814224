"""The Bolt app: one `App` with Atlas's client and a listener pool sized for load, listeners wired.

Mentions and approval clicks are answered by listener middleware on the request thread (what the
answer depends on, then the ack; the rest on a background pool). For other commands and clicks Bolt
waits (up to 3 s) for `ack()` from its listener pool. Every listener here only verifies, claims,
enqueues or looks up locally, so each holds a pool thread for milliseconds; the pool is still sized well above
Bolt's default of 5 so that a burst of clicks never waits for a free thread past Slack's deadline.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import App, BoltRequest, BoltResponse

from atlas.errors import ConfigError
from atlas.settings import Settings
from bot.after_ack import InFlight
from bot.slack import approvals, assistant, commands, feedback, file_issue, help_channels, mentions, solved
from bot.slack.deps import Deps, build
from bot.slack.triage_edits import TriageEdits

log = logging.getLogger("atlas.bot")

LISTENER_THREADS = 32


class CountedApp(App):
    """Bolt's App, counting each request from its dispatch to its answer, so after-ack work lets the
    requests in flight go first (bot/after_ack.py). Bolt's global middleware cannot do this: its
    `next()` only marks the chain as continued, it does not wrap the rest."""

    def __init__(self, in_flight: InFlight, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.in_flight = in_flight

    def dispatch(self, req: BoltRequest) -> BoltResponse:
        with self.in_flight.request():
            return super().dispatch(req)


def create_app(settings: Settings, deps: Deps | None = None, *, socket_mode: bool = False) -> App:
    """Build the app. Calls `auth.test` once (Bolt's token check) to learn the bot's own user id."""
    if not settings.slack_bot_token:
        raise ConfigError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
    if not socket_mode and not settings.slack_signing_secret:
        raise ConfigError("SLACK_SIGNING_SECRET is not set (Basic Information > App Credentials)")
    deps = deps or build(settings)
    bolt_log = logging.getLogger("atlas.bolt")
    bolt_log.addFilter(_ClientTokenNotice())
    app = CountedApp(
        deps.in_flight,
        client=deps.client,
        signing_secret=settings.slack_signing_secret or "",
        listener_executor=ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="atlas-listener"),
        logger=bolt_log,
    )
    app.error(on_error)
    assistant.register(app, deps)  # a global middleware: it sees assistant-thread events before the listeners
    help_channels.register(app, deps)  # before the mentions: a help channel's messages are decided there
    mentions.register(app, deps)
    commands.register(app, deps)
    feedback.register(app, deps)
    file_issue.register(app, deps)
    solved.register(app, deps)  # "Mark as answer" and a maintainer's ✅: a solved thread drafted as knowledge
    policy, directory = approvals.register(app, deps)
    app.use(TriageEdits(deps, policy, directory))  # a triage card's choices: the same policy as its Approve
    return app


def on_error(error: Exception, body: dict[str, Any]) -> None:
    """Listener errors are logged with what kind of request failed; users never see them."""
    kind = body.get("type") if isinstance(body, dict) else None
    event = (body.get("event") or {}).get("type") if isinstance(body, dict) else None
    log.error("listener failed on %s %s", kind, event or "", exc_info=error)


class _ClientTokenNotice(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself and warns that it is unused when given a client: expected here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()
