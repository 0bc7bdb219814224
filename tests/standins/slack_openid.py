"""Sign in with Slack on the Slack stand-in: the authorize page, `openid.connect.token` and `openid.connect.userInfo`,
as Slack documents them (https://docs.slack.dev/authentication/sign-in-with-slack/).

`authorize` is the browser's visit to https://slack.com/openid/connect/authorize: the person signed in to
Slack in that browser (`browser_user`, set by the test) consents and is redirected to `redirect_uri` with a
one-time `code` and the `state` the app sent; an unknown client or a redirect URI the app did not register is
an error page, not a redirect. `openid.connect.token` takes the app's credentials as HTTP Basic auth (what
slack_sdk sends) and the code once, for the same redirect URI, and answers an `id_token`: a JWT whose claims
are Slack's (iss https://slack.com, sub, aud the client id, exp, iat, the `nonce` the authorize request
carried, the team and user claims). Slack signs it with RS256; the stand-in cannot sign with Slack's key, so
its signature part is a placeholder (the app takes the token straight from the token endpoint over TLS, which
OpenID Connect Core 3.1.3.7 accepts in place of checking the signature). `openid.connect.userInfo` answers
the person's claims to their own token.
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode


@dataclass
class OpenID:
    client_id: str = "1234.5678"
    client_secret: str = "test-client-secret"
    redirect_uris: list[str] = field(default_factory=list)
    browser_user: tuple[str, str] | None = None  # (user id, team id) signed in to Slack in the browser
    # code -> user, team, redirect_uri, nonce
    _codes: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)
    _tokens: dict[str, tuple[str, str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _n: itertools.count[int] = field(default_factory=itertools.count)

    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        """The authorize page: a 302 back to the app, or an error page."""
        if query.get("client_id") != self.client_id:
            return 400, {}, b"invalid client_id"
        uri = query.get("redirect_uri", "")
        if uri not in self.redirect_uris or query.get("response_type") != "code":
            return 400, {}, b"bad redirect_uri or response_type"
        if "openid" not in query.get("scope", "").split():
            return 400, {}, b"the openid scope is required"
        if self.browser_user is None:
            return (
                302,
                {"Location": f"{uri}?{urlencode({'error': 'access_denied', 'state': query.get('state', '')})}"},
                b"",
            )
        with self._lock:
            code = f"code-{next(self._n)}"
            self._codes[code] = (*self.browser_user, uri, query.get("nonce", ""))
        return 302, {"Location": f"{uri}?{urlencode({'code': code, 'state': query.get('state', '')})}"}, b""

    def call(self, method: str, args: dict[str, Any], auth: str | None) -> dict[str, Any]:
        if method == "openid.connect.token":
            return self._token(args, auth)
        if method == "openid.connect.userInfo":
            with self._lock:
                who = self._tokens.get((auth or "").removeprefix("Bearer "))
            if who is None:
                return {"ok": False, "error": "invalid_auth"}
            user, team = who
            return {
                "ok": True,
                "sub": user,
                "https://slack.com/user_id": user,
                "https://slack.com/team_id": team,
                "name": f"Person {user}",
                "email_verified": True,
                "locale": "en-US",
            }
        return {"ok": False, "error": "unknown_method"}

    def _token(self, args: dict[str, Any], auth: str | None) -> dict[str, Any]:
        scheme, _, packed = (auth or "").partition(" ")
        client_id, _, secret = (base64.b64decode(packed).decode() if scheme == "Basic" else "").partition(":")
        client_id, secret = client_id or args.get("client_id", ""), secret or args.get("client_secret", "")
        if client_id != self.client_id:
            return {"ok": False, "error": "invalid_client_id"}
        if secret != self.client_secret:
            return {"ok": False, "error": "bad_client_secret"}
        with self._lock:
            found = self._codes.pop(str(args.get("code") or ""), None)  # a code works once
            if found is None:
                return {"ok": False, "error": "invalid_code"}
            user, team, uri, nonce = found
            if args.get("redirect_uri") != uri:
                return {"ok": False, "error": "bad_redirect_uri"}
            token = f"xoxp-openid-{next(self._n)}"
            self._tokens[token] = (user, team)
        return {"ok": True, "access_token": token, "token_type": "Bearer", "id_token": self.id_token(user, team, nonce)}

    def id_token(self, user: str, team: str, nonce: str, *, audience: str | None = None, expires_in: int = 3600) -> str:
        """The JWT Slack answers: its header, its claims, and (here) a placeholder signature."""
        now = int(time.time())
        claims = {
            "iss": "https://slack.com",
            "sub": user,
            "aud": audience or self.client_id,
            "exp": now + expires_in,
            "iat": now,
            "auth_time": now,
            "nonce": nonce,
            "https://slack.com/user_id": user,
            "https://slack.com/team_id": team,
            "name": f"Person {user}",
        }
        if not nonce:
            claims.pop("nonce")  # Slack includes the claim only when the authorize request carried a nonce
        parts = [{"typ": "JWT", "alg": "RS256", "kid": "stand-in"}, claims]
        return ".".join(_b64(json.dumps(p).encode()) for p in parts) + "." + _b64(b"stand-in-signature")


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
