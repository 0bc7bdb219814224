"""The console as a WSGI application under `/console`: routing, signing in and out, and the rule that no
page is served without a session (a session cookie, or `Authorization: Bearer <ATLAS_CONSOLE_TOKEN>`).

Built once per web process by `console(settings)`, None when no way in is configured. Pages are GETs that
read Redis with bounded queries; the only POSTs sign in and out and forget a solved thread, each with a CSRF token.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any

import redis
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from atlas.errors import ConfigError
from atlas.settings import Settings
from bot.console import attempts, pages, slack_signin
from bot.console.access import may_see
from bot.console.layout import ICON, STYLE, page
from bot.console.sessions import COOKIE, Session, Sessions
from bot.console.web import Request, Response, cookie, esc
from bot.slack.client import TIMEOUT_SECONDS, api_url
from workers.approvals.approvers import SlackDirectory

log = logging.getLogger("atlas.bot.console")

PREFIX = "/console"
FORM_COOKIE = "atlas_console_form"
Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def console(settings: Settings, conn: redis.Redis | None = None) -> Console | None:
    """The console when ATLAS_CONSOLE_TOKEN or Sign in with Slack is configured, else None (not served)."""
    if not settings.console.enabled:
        return None
    if settings.console.slack_signin and not settings.slack_bot_token:
        raise ConfigError(
            "Sign in with Slack needs SLACK_BOT_TOKEN: the console asks Slack with it whether "
            "the person is in the bot's workspace and an approver (or in ATLAS_CONSOLE_GROUP)"
        )
    if conn is None:
        from bot.fast_redis import bot_redis

        conn = bot_redis(settings)
    return Console(settings, conn)


class Console:
    """`/console/...` requests, answered."""

    def __init__(self, settings: Settings, conn: redis.Redis) -> None:
        self.settings = settings
        self.conn = conn
        self.sessions = Sessions(conn, settings.console.session_hours)
        self._workspace: str | None = None

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        req = Request.of(environ, PREFIX)
        try:
            response = self.answer(req)
        except redis.RedisError as exc:
            log.warning("console %s: Redis is unavailable (%s)", req.path, type(exc).__name__)
            response = Response.page(
                page("Unavailable", "<h1>Redis is not answering</h1><p>Try again in a moment.</p>", prefix=PREFIX), 503
            )
        return response.send(start_response)

    def answer(self, req: Request) -> Response:
        if req.path == "/style.css":  # the stylesheet and the icon are the same for everyone, signed in or not
            return Response(200, STYLE.encode(), "text/css; charset=utf-8")
        if req.path == "/icon.svg":
            return Response(200, ICON.encode(), "image/svg+xml")
        if req.path == "/signin":
            return self.signin(req)
        if req.path == "/signin/slack" and self.settings.console.slack_signin:
            return slack_signin.start(self.settings, self.sessions, PREFIX)
        if req.path == "/" + slack_signin.CALLBACK and self.settings.console.slack_signin:
            return self.slack_callback(req)
        session = self.session(req)
        if isinstance(session, Response):
            return session
        if session is None:
            return Response.redirect(f"{PREFIX}/signin")
        if req.path == "/signout" and req.method == "POST":
            return self.signout(req, session)
        if req.path == "/knowledge/forget" and req.method == "POST":  # a solved thread forgotten (knowledge_page.py)
            from bot.console import knowledge_page

            return knowledge_page.forget(self.conn, req, session, PREFIX)
        if req.method not in ("GET", "HEAD"):
            return Response.plain("method not allowed\n", 405)
        if req.path == "/":
            return Response.redirect(f"{PREFIX}/runs")
        return pages.route(self.conn, self.settings, req, session, PREFIX)

    # -- who is asking ----------------------------------------------------------------------------

    def session(self, req: Request) -> Session | Response | None:
        """The request's session; a bearer token counts as one (a wrong one is counted and refused)."""
        scheme, _, given = req.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and self.settings.console.token:
            if attempts.blocked(self.conn, req.client):
                return Response.plain("too many wrong tokens; try again later\n", 429)
            if hmac.compare_digest(given.strip().encode(), self.settings.console.token.encode()):
                return Session(user="token", name="bearer token", how="bearer", csrf="")
            attempts.wrong(self.conn, req.client)
            return Response.plain("unauthorized\n", 401)
        found = self.sessions.find(req.cookies.get(COOKIE))
        due = found is not None and time.time() - found.checked >= self.settings.console.recheck_minutes * 60
        if found is not None and found.how == "slack" and due:
            if not self._still_admitted(found):  # removed from the approvers or the console group since
                log.warning("console: Slack user %s may no longer see the console: signed out", found.user)
                self.sessions.end(req.cookies.get(COOKIE))
                return None
            self.sessions.confirmed(req.cookies.get(COOKIE))
        return found

    def _still_admitted(self, session: Session) -> bool:
        """The sign-in rule asked again of Slack (a failed lookup admits nobody, as at sign-in)."""
        client = WebClient(
            token=self.settings.slack_bot_token, base_url=api_url(self.settings), timeout=TIMEOUT_SECONDS
        )
        workspace = self._workspace_of(client)
        return may_see(session.user, session.team, workspace, self.settings, SlackDirectory(client, self.conn))

    def _workspace_of(self, client: WebClient) -> str:
        if self._workspace is None and self.settings.slack_bot_token:
            try:
                self._workspace = str(client.auth_test().get("team_id") or "")
            except (SlackApiError, SlackClientError, OSError) as exc:  # unknown workspace: nobody is admitted
                log.warning("console: auth.test failed (%s)", type(exc).__name__)
        return self._workspace or ""

    def _session_cookie(self, value: str, max_age: int | None = None) -> tuple[str, str]:
        return cookie(
            COOKIE,
            value,
            path=PREFIX,
            max_age=self.sessions.seconds if max_age is None else max_age,
            secure=self.settings.console.secure_cookie,
            same_site="Lax",
        )

    # -- signing in and out -----------------------------------------------------------------------

    def signin(self, req: Request, problem: str = "", status: int = 200) -> Response:
        if req.method == "POST":
            return self.token_signin(req)
        nonce = secrets.token_urlsafe(24)
        body = '<div class="signin"><h1>Atlas console</h1>'
        if problem:
            body += f'<p class="tag bad">{esc(problem)}</p>'
        if self.settings.console.token:
            body += (
                f'<form method="post" action="{PREFIX}/signin"><input type="hidden" name="csrf" value="{esc(nonce)}">'
                '<label>Console token<input type="password" name="token" '
                'autocomplete="current-password" required></label>'
                '<button type="submit">Sign in</button></form>'
            )
        if self.settings.console.slack_signin:
            body += f'<p><a href="{PREFIX}/signin/slack">Sign in with Slack</a></p>'
        body += "</div>"
        form_cookie = cookie(
            FORM_COOKIE,
            self.sessions.sign(nonce),
            path=PREFIX,
            max_age=3600,
            secure=self.settings.console.secure_cookie,
            same_site="Strict",
        )
        return Response(status, page("Sign in", body, prefix=PREFIX).encode(), headers=[form_cookie])

    def token_signin(self, req: Request) -> Response:
        nonce = self.sessions.verify(req.cookies.get(FORM_COOKIE, ""))
        if nonce is None or not hmac.compare_digest(nonce.encode(), req.form.get("csrf", "").encode()):
            return Response.plain("the sign-in form expired; reload it\n", 403)
        if not self.settings.console.token:
            return Response.plain("token sign-in is off\n", 403)
        if attempts.blocked(self.conn, req.client):
            return self.signin(
                Request("GET", req.path, {}, {}, {}, {}, req.client), "Too many wrong tokens: try again later.", 429
            )
        if not hmac.compare_digest(req.form.get("token", "").encode(), self.settings.console.token.encode()):
            attempts.wrong(self.conn, req.client)
            return self.signin(
                Request("GET", req.path, {}, {}, {}, {}, req.client), "That is not the console token.", 401
            )
        value = self.sessions.create("token", "token", "token")
        return Response.redirect(f"{PREFIX}/runs", [self._session_cookie(value)])

    def slack_callback(self, req: Request) -> Response:
        who = slack_signin.person(self.settings, self.sessions, req)
        gone = cookie(slack_signin.STATE_COOKIE, "", path=PREFIX, max_age=0, secure=self.settings.console.secure_cookie)
        if isinstance(who, str):
            response = self.signin(Request("GET", "/signin", {}, {}, {}, {}, req.client), who, 403)
            response.headers.append(gone)
            return response
        client = WebClient(
            token=self.settings.slack_bot_token, base_url=api_url(self.settings), timeout=TIMEOUT_SECONDS
        )
        workspace = self._workspace_of(client)
        if not may_see(who.user, who.team, workspace, self.settings, SlackDirectory(client, self.conn)):
            log.warning("console: Slack user %s may not see the console", who.user)
            response = self.signin(
                Request("GET", "/signin", {}, {}, {}, {}, req.client), "Only maintainers may see the console.", 403
            )
            response.headers.append(gone)
            return response
        value = self.sessions.create(who.user, who.name or who.user, "slack", team=who.team)
        return Response.redirect(f"{PREFIX}/runs", [self._session_cookie(value), gone])

    def signout(self, req: Request, session: Session) -> Response:
        if session.how == "bearer" or not hmac.compare_digest(req.form.get("csrf", "").encode(), session.csrf.encode()):
            return Response.plain("forbidden\n", 403)
        self.sessions.end(req.cookies.get(COOKIE))
        return Response.redirect(f"{PREFIX}/signin", [self._session_cookie("", 0)])
