"""A local stand-in for GitHub's REST API, reached through the real githubkit via `GITHUB_API_URL`.

It serves a generated repository (tests/standins/github_repo.py) and behaves like GitHub where the project relies on it:
token auth (and a GitHub App's JWT -> installation token), fine-grained permissions (403 naming nothing, like GitHub),
`ETag` / `If-None-Match` -> 304 (which costs no rate limit), `Link` pagination, `per_page` <= 100 (422 above), a primary
rate limit counter and an on-demand secondary rate limit (403 with `retry-after`, or without it as GitHub also answers),
a spent primary limit (403 with `x-ratelimit-remaining: 0` and the reset time), the write endpoints (labels, comments,
close with `state_reason`, a new issue), a renamed repository (301 to `/repositories/ID`), transferred issues (301 with
`Location` to the new repository's issue) and deleted ones (410), the `X-GitHub-Api-Version` header (400 for a version
the server does not support), and faults that apply a write and then answer 5xx or too late. Every request is validated
against GitHub's OpenAPI description before it is served and every JSON response before it is sent; a violation is
recorded in `violations` (tests assert there are none) and answered 400. The checks made before a route are
tests/standins/github_gate.py's; `Link` pagination is tests/standins/github_paging.py's.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.standins import (
    github_collaborators,
    github_gate,
    github_graphql,
    github_label_removal,
    github_new_issues,
    github_pulls,
    github_releases,
    github_spec,
)
from tests.standins.github_repo import Repo, generate
from tests.standins.loopback import LoopbackHTTP

TOKEN = "github_pat_test"
ALL = {"issues": "write", "contents": "read", "metadata": "read", "discussions": "read", "pull_requests": "read"}
API_VERSIONS = ("2022-11-28", "2026-03-10")  # what api.github.com accepts in X-GitHub-Api-Version


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0
    operation: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    peer: int = 0  # the client's port: requests over one kept-alive connection share it


class GitHubAPI(LoopbackHTTP):
    """Start it, point `GITHUB_API_URL` at `base_url`, read `calls` and `repo` afterwards."""

    thread_name = "github-standin"

    def __init__(
        self,
        repo: Repo | None = None,
        *,
        token: str = TOKEN,
        permissions: dict[str, str] | None = None,
        validate: bool = True,
        rate_limit: int = 5000,
    ) -> None:
        self.repo = repo or generate()
        self.tokens: dict[str, dict[str, str]] = {token: dict(permissions or ALL)}
        self.validate = validate
        self.calls: list[Call] = []
        self.violations: list[str] = []
        self.rate_remaining = rate_limit
        self.rate_limit = rate_limit
        # retry-after seconds (None: no header) for the next N non-304 requests
        self.secondary: deque[int | None] = deque()
        self.faults: deque[tuple[re.Pattern[str], int]] = deque()  # (METHOD path regex, status), used once
        self.after_write: deque[tuple[re.Pattern[str], int, float]] = deque()  # applied, then (status, delay), once
        self.api_versions = set(API_VERSIONS)  # GitHub Enterprise Server: {"2022-11-28"}
        self.rate_reset = int(time.time()) + 3600
        self.others: dict[str, Repo] = {}  # repositories issues were transferred to, by full name
        self.old_names: list[str] = []  # full names the repository had before a rename: 301 to /repositories/ID
        self.revocations: list[tuple[re.Pattern[str], str]] = []
        # run (once) before a matching request is served
        self.hooks: list[tuple[re.Pattern[str], Callable[[], None]]] = []
        self.graphql_limited = 0  # the next N GraphQL queries answer RATE_LIMITED (github_graphql)
        self.reject_duplicate = False  # a server that does not know state_reason=duplicate (422)
        self.write_delay = 0.0
        # Link next URLs carry opaque page tokens (as GitHub's cursor-paginated listings do): a client that
        # builds `page=N` itself instead of following the Link header gets GitHub's 422
        self.opaque_pages = False
        self.link_base: str | None = None  # Link URLs on another host (a misconfigured proxy): none is followed
        self.tree_limit: int | None = None  # entries per git tree answer; beyond it the answer says truncated: true
        self.page_tokens: dict[int, int] = {}  # page token -> page number
        self.app_id: str | None = None
        self.installation_id = 55
        # login -> repository role (admin, maintain, write, triage, read): the collaborators
        self.roles: dict[str, str] = {}
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v3"

    def env(self) -> dict[str, str]:
        return {
            "GITHUB_API_URL": self.base_url,
            "GITHUB_TOKEN": next(iter(self.tokens)),
            "ATLAS_GITHUB_REPO": self.repo.full_name,
        }

    def fail_next(self, pattern: str, status: int) -> None:
        """The next request matching `METHOD /path?query` (a regex) is answered with `status`."""
        self.faults.append((re.compile(pattern), status))

    def apply_then_fail(self, pattern: str, status: int = 502, *, delay: float = 0.0) -> None:
        """The next write matching `METHOD /path` is applied, then answered `status` after `delay` seconds
        (status 0: its real answer, late): a write GitHub made whose answer was lost."""
        self.after_write.append((re.compile(pattern), status, delay))

    def transfer(self, number: int, to: str = "acme/launchpad") -> int:
        """Move issue `number` to repository `to` (created on first use) as GitHub's transfer does; its new number."""
        from tests.standins.github_repo import LABELS

        with self.repo.lock:
            target = self.others.get(to)
            if target is None:
                owner, name = to.split("/")
                target = self.others[to] = Repo(owner=owner, name=name, repo_id=4343 + len(self.others))
                for label in LABELS:
                    target.add_label(label)
                target.add_issue("An issue that was always here", "Body.")
            old = self.repo.issues.pop(number)
            moved = target.add_issue(
                old["title"],
                old["body"] or "",
                author=old["user"]["login"],
                labels=tuple(label["name"] for label in old["labels"]),
            )
            self.repo.moved[number] = f"/repos/{to}/issues/{moved['number']}"
            return int(moved["number"])

    def rename(self, name: str) -> None:
        """Rename the repository as GitHub does: requests to the old name are redirected (301) by its id."""
        with self.repo.lock:
            self.old_names.append(self.repo.full_name)
            self.repo.name = name

    def delete(self, number: int) -> None:
        """Delete issue `number` as a repository admin can: 410 Gone from then on."""
        with self.repo.lock:
            self.repo.issues.pop(number)
            self.repo.deleted.add(number)

    def revoke(self, token: str = TOKEN) -> None:
        self.tokens.pop(token, None)

    def revoke_when(self, pattern: str, token: str = TOKEN) -> None:
        """Revoke `token` when a request matching `METHOD /path?query` arrives (it and all later get 401)."""
        self.revocations.append((re.compile(pattern), token))

    def before(self, pattern: str, hook: Callable[[], None]) -> None:
        """Call `hook` once, in the handler's thread, when a request matching `METHOD /path?query` arrives."""
        self.hooks.append((re.compile(pattern), hook))

    def requests(self, method: str | None = None, path: str | None = None) -> list[Call]:
        return [
            c
            for c in self.calls
            if (method is None or c.method == method) and (path is None or re.search(path, c.path))
        ]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in two writes: don't let the body wait ~40 ms for a delayed ACK
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_PATCH(self) -> None:
        self._serve("PATCH")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        api: GitHubAPI = self.server.owner  # type: ignore[attr-defined]
        split = urlsplit(self.path)
        path = split.path.removeprefix("/api/v3")
        query = dict(parse_qsl(split.query))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return self._reply(
                api, Call(method, path, query, raw.decode(errors="replace")), 400, {"message": "Problems parsing JSON"}
            )
        call = Call(
            method,
            path,
            query,
            body,
            headers={k.lower(): v for k, v in self.headers.items()},
            peer=int(self.client_address[1]),
        )
        with api.lock:
            api.calls.append(call)
        if api.validate and github_new_issues.outside_spec(method, path):  # issues/create: githubkit's model instead
            refused = github_new_issues.check_request(body)
            if refused:
                api.violations.append(f"request {method} {path}: {refused}")
                return self._reply(api, call, 422, {"message": refused})
        # releases: checked by githubkit's model instead; GraphQL: against GitHub's schema (github_graphql)
        elif api.validate and not _outside_spec(path):
            try:
                call.operation = github_spec.check_request(method, path, query, body)
            except github_spec.SpecViolation as exc:
                api.violations.append(f"request {method} {path}: {exc}")
                return self._reply(api, call, 400, {"message": str(exc)})
        status, payload, headers = github_gate.serve(api, call)
        for i, (pattern, late_status, delay) in enumerate(api.after_write):
            if method != "GET" and status < 300 and pattern.search(f"{method} {path}"):
                del api.after_write[i]
                time.sleep(delay)
                if late_status:
                    status, payload, headers = github_gate.error(late_status, "Server Error")
                break
        try:
            self._reply(api, call, status, payload, headers)
        except OSError:
            pass  # the client gave up waiting (a fault that answers after its timeout)

    def _reply(
        self, api: GitHubAPI, call: Call, status: int, payload: Any, headers: dict[str, str] | None = None
    ) -> None:
        headers = dict(headers or {})
        data = b"" if status == 304 else json.dumps(payload).encode()
        if status == 200 and call.method == "GET":
            etag = 'W/"' + hashlib.sha1(data).hexdigest() + '"'
            headers["ETag"] = etag
            if call.headers.get("if-none-match") == etag:
                status, data = 304, b""
        # GraphQL has a points budget of its own (x-ratelimit-resource: graphql), apart from the REST limit
        if status not in (304,) and not call.path.startswith("/app/") and call.path not in github_graphql.PATHS:
            with api.lock:
                api.rate_remaining = max(api.rate_remaining - 1, 0)
        headers.setdefault("x-ratelimit-limit", str(api.rate_limit))
        headers.setdefault("x-ratelimit-remaining", str(api.rate_remaining))
        headers.setdefault("x-ratelimit-reset", str(api.rate_reset))
        if (
            api.validate
            and status not in (304, 400)
            and data
            and not _outside_spec(call.path)
            and not github_new_issues.outside_spec(call.method, call.path)
        ):
            try:
                github_spec.check_response(call.method, call.path, status, payload)
            except github_spec.SpecViolation as exc:
                api.violations.append(f"response {call.method} {call.path}: {exc}")
        call.status = status
        self.send_response(status)
        if data:
            self.send_header("Content-Type", "application/json; charset=utf-8")
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _outside_spec(path: str) -> bool:
    """Routes GitHub's REST description here has no operation for, each checked its own way instead."""
    return (
        github_releases.outside_spec(path)
        or github_pulls.outside_spec(path)
        or github_collaborators.outside_spec(path)
        or github_label_removal.outside_spec(path)
        or path in github_graphql.PATHS
    )


GitHubAPI.handler = _Handler
