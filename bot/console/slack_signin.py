"""Sign in with Slack (OpenID Connect) for the console, through slack_sdk's `openid.connect.*` methods.

`/signin/slack` sends the browser to Slack's authorize page with a random `state` and `nonce`. The state is
kept in a signed cookie (it ties the callback to this browser) and, with the nonce, in Redis for ten minutes;
the callback takes it from Redis at once (GETDEL), so a state works once. Slack sends the browser back to
`/signin/slack/callback` with a code, which is exchanged for the person's token and `id_token`
(`openid.connect.token`, with the app's client id and secret): the id_token must be for this app, unexpired,
and carry the nonce stored with the state, so a code obtained in another sign-in (code injection) admits
nobody. Its signature is not checked: it comes straight from Slack's token endpoint over TLS, which OpenID
Connect Core 3.1.3.7 accepts in its place. `openid.connect.userInfo` then says who and in which workspace.
The state cookie is SameSite=Lax: Slack's redirect back is a top-level navigation.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from atlas.settings import Settings
from bot.console.sessions import Sessions
from bot.console.web import Request, Response, cookie
from bot.slack.client import TIMEOUT_SECONDS, api_url

log = logging.getLogger("atlas.bot.console")

STATE_COOKIE = "atlas_console_state"
STATE_SECONDS = 600
CALLBACK = "signin/slack/callback"
USER_CLAIM = "https://slack.com/user_id"
TEAM_CLAIM = "https://slack.com/team_id"
ISSUER = "https://slack.com"
SKEW_SECONDS = 120  # clocks of this machine and Slack's differ a little
NOT_HERE = "The sign-in expired, was used already or did not start here. Try again."


def _state_key(state: str) -> str:
    return f"atlas:console:signin:{hashlib.sha256(state.encode()).hexdigest()}"


@dataclass(frozen=True)
class SlackPerson:
    user: str
    team: str
    name: str


def authorize_url(settings: Settings) -> str:
    """Slack's authorize page, beside its Web API (https://slack.com/openid/connect/authorize)."""
    return api_url(settings).removesuffix("/").removesuffix("/api") + "/openid/connect/authorize"


def redirect_uri(settings: Settings) -> str:
    return f"{settings.console.public_url}{CALLBACK}"


def start(settings: Settings, sessions: Sessions, prefix: str) -> Response:
    """Send the browser to Slack with a fresh state (and nonce)."""
    state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(16)
    sessions.conn.set(_state_key(state), nonce, ex=STATE_SECONDS)  # taken once by the callback
    query = urlencode(
        {
            "response_type": "code",
            "scope": "openid profile",
            "client_id": settings.console.slack_client_id,
            "state": state,
            "nonce": nonce,
            "redirect_uri": redirect_uri(settings),
        }
    )
    return Response.redirect(
        f"{authorize_url(settings)}?{query}",
        [
            cookie(
                STATE_COOKIE,
                sessions.sign(state),
                path=prefix,
                max_age=STATE_SECONDS,
                secure=settings.console.secure_cookie,
                same_site="Lax",
            )
        ],
    )


def person(settings: Settings, sessions: Sessions, req: Request) -> SlackPerson | str:
    """Who came back from Slack, or why not (a short reason for the sign-in page: never a token)."""
    state = sessions.verify(req.cookies.get(STATE_COOKIE, ""))
    if state is None or not secrets.compare_digest(state, req.query.get("state", "")):
        return NOT_HERE
    stored = sessions.conn.getdel(_state_key(state))  # single use: a replayed callback finds nothing
    if stored is None:
        return NOT_HERE
    nonce = stored.decode() if isinstance(stored, bytes) else str(stored)
    if req.query.get("error") or not req.query.get("code"):
        return "Slack did not sign you in."
    client = WebClient(base_url=api_url(settings), timeout=TIMEOUT_SECONDS)
    try:
        granted: Any = client.openid_connect_token(
            client_id=settings.console.slack_client_id or "",
            client_secret=settings.console.slack_client_secret or "",
            code=req.query["code"],
            redirect_uri=redirect_uri(settings),
        )
        wrong = id_token_problem(str(granted.get("id_token") or ""), settings.console.slack_client_id or "", nonce)
        if wrong:
            log.warning("Sign in with Slack refused: the id_token %s", wrong)
            return "Slack's answer was not for this sign-in. Try again."
        info: Any = WebClient(
            token=granted["access_token"], base_url=api_url(settings), timeout=TIMEOUT_SECONDS
        ).openid_connect_userInfo()
    except SlackApiError as exc:
        log.warning("Sign in with Slack refused: %s", exc.response.get("error"))
        return "Slack refused the sign-in."
    except (SlackClientError, OSError) as exc:
        log.warning("Sign in with Slack failed: %s", type(exc).__name__)
        return "Slack could not be reached. Try again in a minute."
    return SlackPerson(
        user=str(info.get(USER_CLAIM) or info.get("sub") or ""),
        team=str(info.get(TEAM_CLAIM) or ""),
        name=str(info.get("name") or info.get(USER_CLAIM) or ""),
    )


def id_token_problem(token: str, client_id: str, nonce: str, now: float | None = None) -> str | None:
    """What is wrong with the id_token for this sign-in (for the log), or None: Slack's issuer, this app's
    audience, not expired, and the nonce sent with this sign-in's state."""
    try:
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=" * (-len(token.split(".")[1]) % 4)))
    except (IndexError, ValueError, binascii.Error):
        return "is not a JWT"
    if not isinstance(claims, dict):
        return "is not a JWT"
    audience = claims.get("aud")
    ours = audience == client_id or (isinstance(audience, list) and client_id in audience)
    if claims.get("iss") != ISSUER or not ours:
        return "is for another issuer or app"
    expires = claims.get("exp")
    if not isinstance(expires, int | float) or expires + SKEW_SECONDS < (time.time() if now is None else now):
        return "has expired"
    if not secrets.compare_digest(str(claims.get("nonce") or ""), nonce):
        return "carries another sign-in's nonce"
    return None
