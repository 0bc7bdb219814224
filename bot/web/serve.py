"""Running the app: HTTP behind waitress (Bolt's `/slack/events`), or Socket Mode (bot/web/slack_start.py).

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
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.adapter.wsgi.http_request import WsgiHttpRequest
from slack_bolt.request import BoltRequest
from slack_bolt.response import BoltResponse
from waitress import create_server
from waitress.server import BaseWSGIServer, MultiSocketServer

from atlas.connection import redis_url
from atlas.settings import Settings
from bot.body_limits import GITHUB_MAX_BODY, log_refusals, server_limit
from bot.console.app import PREFIX as CONSOLE_PATH
from bot.console.app import console as console_app
from bot.mcp.http import MCP_PATH, METADATA_PATH
from bot.mcp.http import endpoint as mcp_endpoint
from bot.slack.app import create_app
from bot.web import drain
from bot.web.slack_start import check_slack

log = logging.getLogger("atlas.bot.serve")

EVENTS_PATH = "/slack/events"  # Bolt's default; the manifest's URLs end with it
DISCORD_PATH = "/discord/interactions"  # the Discord application's Interactions Endpoint URL
HEALTH_PATH = "/healthz"
GITHUB_PATH = "/github/webhook"
HTTP_THREADS = 16  # waitress request threads (ATLAS_HTTP_THREADS); each request holds one for milliseconds
BACKLOG = 1024  # a burst of Slack deliveries queues in the kernel rather than being refused
TIMESTAMP_HEADER = "x-slack-request-timestamp"

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class CheckedRequestHandler(SlackRequestHandler):
    """Bolt's WSGI adapter, refusing a malformed request with 400/401 instead of a 500 and a traceback.

    Bolt parses the body before it checks the signature, and slack_sdk's verifier calls int() on the
    timestamp header: an unsigned request with bad JSON, a body that is not UTF-8 or a non-numeric
    timestamp raised inside Bolt. Well-formed requests go to Bolt unchanged, which verifies them.
    """

    def dispatch(self, request: WsgiHttpRequest) -> BoltResponse:
        stamp = str(request.get_headers().get(TIMESTAMP_HEADER) or "0")
        if not (stamp.isascii() and stamp.isdigit()):
            log.info("refused a request to %s: its timestamp is not a number", EVENTS_PATH)
            return BoltResponse(status=401, body="")
        try:
            bolt_request = BoltRequest(
                body=request.get_body(), query=request.query_string, headers=request.get_headers()
            )
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            log.info("refused a request to %s: malformed body (%s)", EVENTS_PATH, type(exc).__name__)
            return BoltResponse(status=400, body="")
        return self.app.dispatch(bolt_request)


def wsgi_app(
    app: App | None,
    github: Wsgi | None = None,
    discord: Wsgi | None = None,
    mcp: Wsgi | None = None,
    console: Wsgi | None = None,
) -> Wsgi:
    """Bolt's WSGI handler, GitHub's webhook path, Discord's interactions endpoint and the console when
    configured, and a health check for load balancers and process managers."""
    slack = CheckedRequestHandler(app, path=EVENTS_PATH) if app is not None else None

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"ok\n"]
        if github is not None and environ.get("PATH_INFO") == GITHUB_PATH:
            return github(environ, start_response)
        if discord is not None and environ.get("PATH_INFO") == DISCORD_PATH:
            return discord(environ, start_response)
        if mcp is not None and environ.get("PATH_INFO") in (MCP_PATH, METADATA_PATH):  # bot/mcp/http.py
            return mcp(environ, start_response)
        if console is not None and _under(str(environ.get("PATH_INFO") or ""), CONSOLE_PATH):  # bot/console/
            return console(environ, start_response)
        if slack is None:
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"not found\n"]
        return slack(environ, start_response)

    return application


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def http_server(
    app: App | None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    sock: socket.socket | None = None,
    github: Wsgi | None = None,
    discord: Wsgi | None = None,
    threads: int = HTTP_THREADS,
    mcp: Wsgi | None = None,
    console: Wsgi | None = None,
) -> BaseWSGIServer | MultiSocketServer:
    """A waitress server for the app, bound but not yet running (port 0 picks a free port)."""
    where: dict[str, Any] = (
        {"sockets": [sock]} if sock is not None else {"host": host, "port": port, "backlog": BACKLOG}
    )
    limits = {GITHUB_PATH: GITHUB_MAX_BODY} if github is not None else {}
    server = create_server(
        wsgi_app(app, github, discord, mcp, console),
        threads=threads,
        ident="atlas",
        clear_untrusted_proxy_headers=True,
        max_request_body_size=server_limit(limits),
        **where,
    )
    log_refusals(server, limits)  # each route its own limit: GitHub's payloads reach 25 MB, Slack's a few KiB
    return server


def web_apps(settings: Settings) -> tuple[App | None, Wsgi | None]:
    """The Slack app (unless only Discord is configured) and Discord's endpoint (when configured)."""
    discord: Wsgi | None = None
    if settings.discord_public_key:
        from bot.discord.endpoint import endpoint

        discord = endpoint(settings)
    return (create_app(settings) if slack_on(settings) else None), discord


def slack_on(settings: Settings) -> bool:
    """Slack is served over HTTP when either of its two secrets is set (a missing one is then an error);
    with neither, the rest (health, GitHub's webhook, Discord) is served without it."""
    return bool(settings.slack_bot_token or settings.slack_signing_secret)


def _announce(
    settings: Settings,
    host: str,
    port: int,
    github: bool,
    discord: bool,
    mcp: bool = False,
    processes: int = 1,
    console: bool = False,
) -> None:
    """One line of what is served and, when Slack is off, one saying how to turn it on."""
    served = (
        (EVENTS_PATH, slack_on(settings)),
        (GITHUB_PATH, github),
        (DISCORD_PATH, discord),
        (MCP_PATH, mcp),
        (CONSOLE_PATH + "/", console),
        (HEALTH_PATH, True),
    )
    paths = [path for path, on in served if on]
    many = f" ({processes} processes)" if processes > 1 else ""
    log.warning("Atlas is listening on http://%s:%s%s: %s", host, port, many, ", ".join(paths))
    if not slack_on(settings):
        log.warning(
            "Slack is off: SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are not set "
            "(set both, from the Slack app's settings, to answer Slack at %s)",
            EVENTS_PATH,
        )


def serve_http(settings: Settings, *, host: str, port: int, processes: int = 1) -> int:
    """`atlas serve`: serve until interrupted; with `processes` > 1, that many processes share the port.

    Each request is CPU work in Python (signature, Bolt, Redis client), and one process runs Python on
    one core at a time; more processes on one socket let a burst of events use every core.
    """
    if slack_on(settings):  # without Slack's secrets, the rest is served and one line says Slack is off
        check_slack(settings)
    if processes <= 1:
        slack, discord = web_apps(settings)
        github, mcp = github_webhook(settings), mcp_endpoint(settings)
        server = http_server(
            slack,
            host=host,
            port=port,
            github=github,
            discord=discord,
            threads=settings.http_threads,
            mcp=mcp,
            console=console_app(settings),
        )
        _announce(
            settings,
            host,
            port,
            github is not None,
            discord is not None,
            mcp is not None,
            console=settings.console.enabled,
        )
        _run(server)
        return 0
    settings = replace(settings, redis_url=redis_url(settings))  # start the embedded Redis once, here
    sock = socket.create_server((host, port), backlog=BACKLOG)
    children: list[int] = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:  # a child: its own app, Redis pool and threads, on the shared socket
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # until its server runs: then SIGTERM drains it
            try:
                slack, discord = web_apps(settings)
                _run(
                    http_server(
                        slack,
                        sock=sock,
                        github=github_webhook(settings),
                        discord=discord,
                        threads=settings.http_threads,
                        mcp=mcp_endpoint(settings),
                        console=console_app(settings),
                    )
                )
            finally:
                os._exit(0)
        children.append(pid)
    _announce(
        settings,
        host,
        port,
        settings.github is not None,
        bool(settings.discord_public_key),
        bool(settings.mcp_token),
        processes=processes,
        console=settings.console.enabled,
    )

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


def github_webhook(settings: Settings) -> Wsgi | None:
    """`POST /github/webhook` when a repository is served (bot/github/webhook.py), else None."""
    if settings.github is None:
        return None
    from bot.fast_redis import bot_redis
    from bot.github.webhook import handler

    return handler(settings, bot_redis(settings))


def _run(server: BaseWSGIServer | MultiSocketServer) -> None:
    """Serve until SIGTERM, which finishes the requests in flight first (bot/web/drain.py), or Ctrl-C."""
    drain.run(server)
