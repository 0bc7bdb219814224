"""The console's HTTP plumbing on WSGI: a parsed request, a response with the headers every page carries.

The web process serves WSGI (waitress); the console needs no framework for a handful of GET pages and two
forms. Each response forbids framing, sniffing, caching and any script or style from elsewhere (CSP).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode

MAX_FORM_BYTES = 16 * 1024
SECURITY_HEADERS = [
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
]


def esc(value: object) -> str:
    """Any value as HTML text: questions, answers and tool results are untrusted."""
    return html.escape(str(value), quote=True)


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # below the console's prefix, e.g. "/runs"
    query: dict[str, str]
    form: dict[str, str]
    cookies: dict[str, str]
    headers: dict[str, str]  # lower-case names
    client: str

    @classmethod
    def of(cls, environ: dict[str, Any], prefix: str) -> Request:
        method = str(environ.get("REQUEST_METHOD") or "GET").upper()
        query = {k: v[0] for k, v in parse_qs(str(environ.get("QUERY_STRING") or "")).items()}
        form: dict[str, str] = {}
        if method == "POST":
            try:
                length = min(int(environ.get("CONTENT_LENGTH") or 0), MAX_FORM_BYTES)
            except ValueError:
                length = 0
            raw = environ["wsgi.input"].read(length) if length > 0 else b""
            form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
        cookies: dict[str, str] = {}
        try:
            jar = SimpleCookie(str(environ.get("HTTP_COOKIE") or ""))
            cookies = {k: m.value for k, m in jar.items()}
        except CookieError:
            pass
        headers = {k[5:].replace("_", "-").lower(): str(v) for k, v in environ.items() if k.startswith("HTTP_")}
        path = str(environ.get("PATH_INFO") or "/").removeprefix(prefix) or "/"
        return cls(
            method,
            path if path.startswith("/") else "/" + path,
            query,
            form,
            cookies,
            headers,
            str(environ.get("REMOTE_ADDR") or ""),
        )

    def link(self, path: str, **params: object) -> str:
        """This request's query with `params` changed (None or "" drops one), for filters and paging."""
        merged = {**self.query, **{k: str(v) for k, v in params.items() if v not in (None, "")}}
        for k, v in params.items():
            if v in (None, ""):
                merged.pop(k, None)
        return path + ("?" + urlencode(merged) if merged else "")


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def page(cls, markup: str, status: int = 200) -> Response:
        return cls(status, markup.encode())

    @classmethod
    def redirect(cls, location: str, headers: list[tuple[str, str]] | None = None) -> Response:
        return cls(303, b"", "text/plain; charset=utf-8", [("Location", location), *(headers or [])])

    @classmethod
    def plain(cls, message: str, status: int) -> Response:
        return cls(status, message.encode(), "text/plain; charset=utf-8")

    def send(self, start_response: Callable[..., Any]) -> Iterable[bytes]:
        head = [
            ("Content-Type", self.content_type),
            ("Content-Length", str(len(self.body))),
            *SECURITY_HEADERS,
            *self.headers,
        ]
        start_response(f"{self.status} {HTTPStatus(self.status).phrase}", head)
        return [self.body]


def cookie(name: str, value: str, *, path: str, max_age: int, secure: bool, same_site: str = "Lax") -> tuple[str, str]:
    """A Set-Cookie header that scripts cannot read (HttpOnly) and other sites do not send (SameSite)."""
    parts = [f"{name}={value}", f"Path={path}", f"Max-Age={max_age}", "HttpOnly", f"SameSite={same_site}"]
    if secure:
        parts.append("Secure")
    return "Set-Cookie", "; ".join(parts)
