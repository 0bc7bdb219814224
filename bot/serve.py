"""Running the app: HTTP behind waitress (Bolt's `/slack/events`), or Socket Mode.

HTTP is for a host with a public URL (Slack posts to it); Socket Mode opens a WebSocket to Slack
with `SLACK_APP_TOKEN`, for a laptop with no public URL. Both run the same `App`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from waitress import create_server
from waitress.server import BaseWSGIServer, MultiSocketServer

from atlas.connection import redis_url
from atlas.settings import ConfigError, Settings
from bot.app import create_app

log = logging.getLogger("atlas.bot.serve")

EVENTS_PATH = "/slack/events"  # Bolt's default; the manifest's URLs end with it
DISCORD_PATH = "/discord/interactions"  # the Discord application's Interactions Endpoint URL
HEALTH_PATH = "/healthz"
HTTP_THREADS = 16  # waitress request threads; each request holds one for milliseconds
SOCKET_CONCURRENCY = 16
BACKLOG = 1024  # a burst of Slack deliveries queues in the kernel rather than being refused

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def wsgi_app(app: App | None, discord: Wsgi | None = None) -> Wsgi:
    """Bolt's WSGI handler, Discord's interactions endpoint when configured, and a health check
    for load balancers and process managers."""
    slack = SlackRequestHandler(app, path=EVENTS_PATH) if app is not None else None

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        if discord is not None and environ.get("PATH_INFO") == DISCORD_PATH:
            return discord(environ, start_response)
        if slack is None:
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"not found\n"]
        return slack(environ, start_response)

    return application


def http_server(app: App | None, *, host: str = "127.0.0.1", port: int = 0, sock: socket.socket | None = None,
                discord: Wsgi | None = None) -> BaseWSGIServer | MultiSocketServer:
    """A waitress server for the app, bound but not yet running (port 0 picks a free port)."""
    where: dict[str, Any] = {"sockets": [sock]} if sock is not None else {"host": host, "port": port, "backlog": BACKLOG}
    return create_server(wsgi_app(app, discord), threads=HTTP_THREADS, ident="atlas", clear_untrusted_proxy_headers=True, **where)


def web_apps(settings: Settings) -> tuple[App | None, Wsgi | None]:
    """The Slack app (unless only Discord is configured) and Discord's endpoint (when configured)."""
    discord: Wsgi | None = None
    if settings.discord_public_key:
        from bot.discord.endpoint import endpoint

        discord = endpoint(settings)
    slack = None if discord is not None and not settings.slack_bot_token else create_app(settings)
    return slack, discord


def serve_http(settings: Settings, *, host: str, port: int, processes: int = 1) -> int:
    """`atlas serve`: serve until interrupted; with `processes` > 1, that many processes share the port.

    Each request is CPU work in Python (signature, Bolt, Redis client), and one process runs Python on
    one core at a time; more processes on one socket let a burst of events use every core.
    """
    if processes <= 1:
        slack, discord = web_apps(settings)
        server = http_server(slack, host=host, port=port, discord=discord)
        log.warning("Atlas is listening on http://%s:%s%s", host, port, EVENTS_PATH)
        _run(server)
        return 0
    settings = replace(settings, redis_url=redis_url(settings))  # start the embedded Redis once, here
    sock = socket.create_server((host, port), backlog=BACKLOG)
    children: list[int] = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:  # a child: its own app, Redis pool and threads, on the shared socket
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                slack, discord = web_apps(settings)
                _run(http_server(slack, sock=sock, discord=discord))
            finally:
                os._exit(0)
        children.append(pid)
    log.warning("Atlas is listening on http://%s:%s%s (%d processes)", host, port, EVENTS_PATH, processes)

    def stop(signum: int, frame: Any) -> None:
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    try:
        for child in children:
            os.waitpid(child, 0)
    except KeyboardInterrupt:
        stop(signal.SIGINT, None)
    return 0


def _run(server: BaseWSGIServer | MultiSocketServer) -> None:
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


def serve_socket(settings: Settings) -> int:
    """`atlas serve --socket`: connect to Slack over a WebSocket and serve until interrupted."""
    if not settings.slack_app_token:
        raise ConfigError("SLACK_APP_TOKEN is not set (an app-level token, xapp-..., with connections:write)")
    app = create_app(settings, socket_mode=True)
    handler = SocketModeHandler(app, settings.slack_app_token, concurrency=SOCKET_CONCURRENCY)
    log.warning("Atlas is connected to Slack in Socket Mode")
    handler.start()
    return 0
