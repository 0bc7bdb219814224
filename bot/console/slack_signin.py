"""Sign in with Slack (OpenID Connect) for the console, through slack_sdk's `openid.connect.*` methods.

`/signin/slack` sends the browser to Slack's authorize page with a random `state`, also kept in a signed
cookie; Slack sends it back to `/signin/slack/callback` with a code, which is exchanged for the person's
token (`openid.connect.token`, with the app's client id and secret); `openid.connect.userInfo` then says who
and in which workspace. The state cookie is SameSite=Lax: Slack's redirect back is a top-level navigation.
"""

from __future__ import annotations

import logging
import secrets
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
    state = secrets.token_urlsafe(24)
    query = urlencode({"response_type": "code", "scope": "openid profile", "client_id": settings.console.slack_client_id,
                       "state": state, "nonce": secrets.token_urlsafe(16), "redirect_uri": redirect_uri(settings)})
    return Response.redirect(f"{authorize_url(settings)}?{query}", [
        cookie(STATE_COOKIE, sessions.sign(state), path=prefix, max_age=STATE_SECONDS,
               secure=settings.console.secure_cookie, same_site="Lax")])


def person(settings: Settings, sessions: Sessions, req: Request) -> SlackPerson | str:
    """Who came back from Slack, or why not (a short reason for the sign-in page: never a token)."""
    state = sessions.verify(req.cookies.get(STATE_COOKIE, ""))
    if state is None or not secrets.compare_digest(state, req.query.get("state", "")):
        return "The sign-in expired or did not start here. Try again."
    if req.query.get("error") or not req.query.get("code"):
        return "Slack did not sign you in."
    client = WebClient(base_url=api_url(settings), timeout=TIMEOUT_SECONDS)
    try:
        granted: Any = client.openid_connect_token(client_id=settings.console.slack_client_id or "",
                                                   client_secret=settings.console.slack_client_secret or "",
                                                   code=req.query["code"], redirect_uri=redirect_uri(settings))
        info: Any = WebClient(token=granted["access_token"], base_url=api_url(settings),
                              timeout=TIMEOUT_SECONDS).openid_connect_userInfo()
    except SlackApiError as exc:
        log.warning("Sign in with Slack refused: %s", exc.response.get("error"))
        return "Slack refused the sign-in."
    except (SlackClientError, OSError) as exc:
        log.warning("Sign in with Slack failed: %s", type(exc).__name__)
        return "Slack could not be reached. Try again in a minute."
    return SlackPerson(user=str(info.get(USER_CLAIM) or info.get("sub") or ""), team=str(info.get(TEAM_CLAIM) or ""),
                       name=str(info.get("name") or info.get(USER_CLAIM) or ""))
