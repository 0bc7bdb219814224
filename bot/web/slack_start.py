"""Slack at start-up: the bot token checked with one `auth.test` before serving, and Socket Mode (`atlas serve
--socket`), a WebSocket to Slack with `SLACK_APP_TOKEN` for a laptop with no public URL. A start-up call's failure
is one line, never a traceback."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from atlas.errors import ConfigError, Unavailable
from atlas.settings import Settings
from bot.slack.app import create_app
from bot.slack.client import TIMEOUT_SECONDS, api_url

log = logging.getLogger("atlas.bot.serve")
SOCKET_CONCURRENCY = 16


def serve_socket(settings: Settings) -> int:
    """`atlas serve --socket`: connect to Slack over a WebSocket and serve until interrupted."""
    if not settings.slack_app_token:
        raise ConfigError("SLACK_APP_TOKEN is not set (an app-level token, xapp-..., with connections:write)")
    check_slack(settings)
    app = create_app(settings, socket_mode=True)
    handler = SocketModeHandler(app, settings.slack_app_token, concurrency=SOCKET_CONCURRENCY)
    with _starting(settings, "SLACK_APP_TOKEN", "apps.connections.open"):
        handler.connect()  # type: ignore[no-untyped-call]  # slack_bolt leaves SocketModeHandler.connect unannotated
    log.warning("Atlas is connected to Slack in Socket Mode")
    try:
        threading.Event().wait()  # the handler's threads serve; this one waits for Ctrl-C or SIGTERM
    except KeyboardInterrupt:
        pass
    finally:
        handler.close()  # type: ignore[no-untyped-call]  # likewise
    return 0


def check_slack(settings: Settings) -> None:
    """Before serving: one `auth.test` with the bot token, so a wrong token or an unreachable Slack
    is one clear line at start-up rather than a traceback (or, later, failures in every thread)."""
    if not settings.slack_bot_token:
        raise ConfigError("SLACK_BOT_TOKEN is not set (the bot token, xoxb-...)")
    # One try, no retries, and slack_sdk's own error log kept quiet: the line below is the report.
    quiet = logging.getLogger("atlas.bot.slack_check")
    quiet.setLevel(logging.CRITICAL)
    client = WebClient(
        token=settings.slack_bot_token, base_url=api_url(settings), timeout=TIMEOUT_SECONDS, logger=quiet
    )
    with _starting(settings, "SLACK_BOT_TOKEN", "auth.test"):
        client.auth_test()


@contextlib.contextmanager
def _starting(settings: Settings, token: str, method: str) -> Iterator[None]:
    """A start-up call's failure as one line: Slack refused the token (exit 2) or is unreachable (exit 1)."""
    try:
        yield
    except SlackApiError as exc:
        raise ConfigError(f"Slack refused {token} ({method}: {exc.response.get('error')})") from None
    except (SlackClientError, OSError) as exc:
        raise Unavailable(f"Slack's Web API at {api_url(settings)} is unreachable ({_reason(exc)})") from None


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    return str(reason).splitlines()[0][:200] if str(reason) else type(exc).__name__
