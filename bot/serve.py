"""Running the app: HTTP behind waitress (Bolt's `/slack/events`), or Socket Mode.

HTTP is for a host with a public URL (Slack posts to it); Socket Mode opens a WebSocket to Slack
with `SLACK_APP_TOKEN`, for a laptop with no public URL. Both run the same `App`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from waitress import create_server
from waitress.server import BaseWSGIServer, MultiSocketServer

from atlas.settings import ConfigError, Settings
from bot.app import create_app

log = logging.getLogger("atlas.bot.serve")

EVENTS_PATH = "/slack/events"  # Bolt's default; the manifest's URLs end with it
HEALTH_PATH = "/healthz"
HTTP_THREADS = 16  # waitress request threads; each request holds one for milliseconds
SOCKET_CONCURRENCY = 16
BACKLOG = 1024  # a burst of Slack deliveries queues in the kernel rather than being refused

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def wsgi_app(app: App) -> Wsgi:
    """Bolt's WSGI handler plus a health check for load balancers and process managers."""
    slack = SlackRequestHandler(app, path=EVENTS_PATH)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        return slack(environ, start_response)

    return application


def http_server(app: App, *, host: str, port: int) -> BaseWSGIServer | MultiSocketServer:
    """A waitress server for the app, bound but not yet running (port 0 picks a free port)."""
    return create_server(
        wsgi_app(app), host=host, port=port, threads=HTTP_THREADS, backlog=BACKLOG, ident="atlas",
        clear_untrusted_proxy_headers=True,
    )


def serve_http(settings: Settings, *, host: str, port: int) -> int:
    """`atlas serve`: serve until interrupted."""
    server = http_server(create_app(settings), host=host, port=port)
    log.warning("Atlas is listening on http://%s:%s%s", host, port, EVENTS_PATH)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def serve_socket(settings: Settings) -> int:
    """`atlas serve --socket`: connect to Slack over a WebSocket and serve until interrupted."""
    if not settings.slack_app_token:
        raise ConfigError("SLACK_APP_TOKEN is not set (an app-level token, xapp-..., with connections:write)")
    app = create_app(settings, socket_mode=True)
    handler = SocketModeHandler(app, settings.slack_app_token, concurrency=SOCKET_CONCURRENCY)
    log.warning("Atlas is connected to Slack in Socket Mode")
    handler.start()
    return 0
