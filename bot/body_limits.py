"""How large a request body each route of `atlas serve` takes, and a log line for every one refused.

GitHub sends webhook payloads of up to 25 MB; Slack's and Discord's are a few KiB. waitress has one
limit per server, checked as the headers arrive (a body too large is refused before it is read): its
request parser is extended to take the limit of the request's path instead, and its error answer to
log each refusal (waitress refuses silently).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from typing import Any

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import BaseWSGIServer, MultiSocketServer
from waitress.task import ErrorTask
from waitress.utilities import RequestEntityTooLarge

log = logging.getLogger("atlas.bot.serve")

DEFAULT_MAX_BODY = 1 << 20  # Slack's and Discord's payloads are a few KiB
GITHUB_MAX_BODY = 25 * 1024 * 1024  # GitHub caps webhook payloads at 25 MB


def server_limit(limits: Mapping[str, int]) -> int:
    """waitress's `max_request_body_size` for these routes (it refuses a body of that size or more)."""
    return max([DEFAULT_MAX_BODY, *limits.values()]) + 1


class _LoggedErrorTask(ErrorTask):  # type: ignore[misc]  # waitress ships no type information
    """waitress's error answer, with a log line when the error is a body above the route's limit."""

    def execute(self) -> None:
        request = self.request
        if isinstance(request.error, RequestEntityTooLarge):
            log.warning(
                "refused a %d-byte request body to %s: above its limit of %d bytes",
                max(request.content_length, request.body_bytes_received),
                getattr(request, "path", None) or "?",
                request.adj.max_request_body_size - 1,
            )
        super().execute()


def log_refusals(server: BaseWSGIServer | MultiSocketServer, limits: Mapping[str, int]) -> None:
    """Have every listener of `server` hold each path to its own limit (DEFAULT_MAX_BODY when not
    listed) and log every body refused."""
    by_path = {path: limit + 1 for path, limit in limits.items()}  # waitress refuses at its limit, not above

    class RoutedParser(HTTPRequestParser):  # type: ignore[misc]
        def parse_header(self, header_plus: bytes) -> Any:
            done = super().parse_header(header_plus)
            own: Any = copy.copy(getattr(self, "adj"))  # noqa: B009  # (self.adj: mypy cannot type it) this request's own: waitress reads the limit right after the headers
            own.max_request_body_size = by_path.get(self.path, DEFAULT_MAX_BODY + 1)
            self.adj = own
            return done

    class RoutedChannel(HTTPChannel):  # type: ignore[misc]
        parser_class = RoutedParser
        error_task_class = _LoggedErrorTask

    listeners = (
        [server]
        if isinstance(server, BaseWSGIServer)
        else [s for s in server.map.values() if isinstance(s, BaseWSGIServer)]
    )
    for listener in listeners:
        listener.channel_class = RoutedChannel
