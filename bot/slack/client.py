"""Slack Web API clients: the configured base URL, bounded timeouts and slack_sdk's retry handlers.

Two kinds, because a retry is only safe when repeating the call cannot change the outcome:
- `web_client(settings)` retries 429s (Slack did not process the call), 500/503s and dropped
  connections. For reads, updates (`chat.update` by ts) and anything else safe to repeat.
- `web_client(settings, repeatable=False)` retries 429s only. For calls that create something
  (`chat.postMessage`, `chat.startStream`): after a 5xx or a dropped connection Slack may have
  posted the message already, and a blind retry would post the answer twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler

from atlas.settings import Settings
from atlas.surface_settings import SLACK_HISTORY_LIMITS

TIMEOUT_SECONDS = 10  # one Web API call; slack_sdk's default is 30
RATE_LIMIT_RETRIES = 2  # each waits Retry-After seconds, as Slack asks
SERVER_ERROR_RETRIES = 2
CONNECTION_RETRIES = 2


def api_url(settings: Settings) -> str:
    """The Web API base URL, with the trailing slash slack_sdk expects."""
    url = settings.slack_api_url or WebClient.BASE_URL
    return url if url.endswith("/") else url + "/"


def retry_handlers(*, repeatable: bool = True) -> list[RetryHandler]:
    """slack_sdk's built-in handlers: 429 always; 5xx and connection errors only when safe to repeat."""
    handlers: list[RetryHandler] = [RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)]
    if repeatable:
        handlers.append(ServerErrorRetryHandler(max_retry_count=SERVER_ERROR_RETRIES))
        handlers.append(ConnectionErrorRetryHandler(max_retry_count=CONNECTION_RETRIES))
    return handlers


class AtlasWebClient(WebClient):
    """A WebClient that knows its app's history page (ATLAS_SLACK_TIER): 200 messages, or 15 for a distributed
    app outside the Marketplace, whose history reads Slack also limits to one a minute (the 429's Retry-After
    is waited out by the rate-limit handler)."""

    history_page: int = SLACK_HISTORY_LIMITS["marketplace"][0]


def web_client(settings: Settings, *, repeatable: bool = True, timeout: int = TIMEOUT_SECONDS) -> WebClient:
    """A WebClient with the bot token against `SLACK_API_URL` (Slack's own API when unset)."""
    client = AtlasWebClient(
        token=settings.slack_bot_token,
        base_url=api_url(settings),
        timeout=timeout,
        retry_handlers=retry_handlers(repeatable=repeatable),
    )
    client.history_page = SLACK_HISTORY_LIMITS[settings.slack_tier][0]
    return client


@dataclass(frozen=True)
class SlackClients:
    """Both kinds of client, built once per process and shared by every job and thread (a WebClient keeps
    no per-call state): building them for each run cost a worker about 0.05 ms of CPU per run."""

    client: WebClient  # `web_client(settings)`: retries what is safe to repeat
    create_client: WebClient  # `web_client(settings, repeatable=False)`: for calls that create messages

    @classmethod
    def for_settings(cls, settings: Settings) -> SlackClients:
        return cls(web_client(settings), web_client(settings, repeatable=False))


def error_code(exc: SlackApiError) -> str:
    """Slack's `error` field of a failed call ("unknown" when the response has none)."""
    response = getattr(exc, "response", None)
    try:
        return str(response.get("error")) if response is not None else "unknown"
    except Exception:
        return "unknown"


def error_details(exc: SlackApiError) -> list[str]:
    """The detail lines Slack adds to some errors (`errors`, `response_metadata.messages`), e.g. which block
    of an `invalid_blocks` it could not take."""
    response = getattr(exc, "response", None)
    data = getattr(response, "data", None)
    if not isinstance(data, dict):
        return []
    metadata = data.get("response_metadata")
    lines = list(data.get("errors") or []) + list(
        (metadata.get("messages") if isinstance(metadata, dict) else None) or []
    )
    return [str(line) for line in lines]
