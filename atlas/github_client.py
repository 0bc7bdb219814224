"""The githubkit client for the configured repository, and GitHub's failures mapped to our own.

Auth is a fine-grained token (`GITHUB_TOKEN`) or a GitHub App: the App's installation is found
from the repository (`GET /repos/{o}/{r}/installation` with the App's JWT) and githubkit's
installation strategy mints tokens and refreshes them a minute before their hour is up.
githubkit's HTTP cache and automatic retries are off: the sync keeps its own ETags on disk (so a
304 survives restarts) and waits out rate limits itself, saying so on its progress line. Every
request carries `X-GitHub-Api-Version`: githubkit's, or `ATLAS_GITHUB_API_VERSION` (GitHub
Enterprise Server releases accept older versions; an unsupported one is answered 400).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
from githubkit import AppAuthStrategy, GitHub, TokenAuthStrategy
from githubkit.exception import (
    AuthCredentialError,
    GitHubException,
    RateLimitExceeded,
    RequestError,
    RequestFailed,
    RequestTimeout,
)

from atlas.errors import GitHubConfigError, GitHubFailure
from atlas.project_settings import GitHubSettings

USER_AGENT = "atlas-maintainer-bot"
API_VERSION_HEADER = "X-GitHub-Api-Version"
TIMEOUT_SECONDS = 15.0
# What each kind of access needs on a fine-grained token or a GitHub App installation.
READ_ISSUES = "Issues: read"
WRITE_ISSUES = "Issues: read and write"
READ_CONTENTS = "Contents: read"
READ_DISCUSSIONS = "Discussions: read"
SECONDARY_MIN_WAIT = 60.0  # GitHub: without retry-after or a spent limit, "wait for at least one minute"
MAX_BACKOFF_SECONDS = 960.0  # 60 s doubled four times: then GitHub is asked too often to be polite


def client(gh: GitHubSettings) -> GitHub[Any]:
    """A sync githubkit client for the repository's credentials, at `GITHUB_API_URL` when set."""
    options: dict[str, Any] = dict(
        base_url=gh.api_url,
        user_agent=USER_AGENT,
        timeout=httpx.Timeout(TIMEOUT_SECONDS),
        http_cache=False,
        auto_retry=False,
    )
    if gh.api_version:
        options["event_hooks"] = {"request": [_pin_version(gh.api_version)]}
    if gh.token:
        return GitHub(TokenAuthStrategy(gh.token), **options)
    if gh.app_id and gh.app_private_key:
        app = GitHub(AppAuthStrategy(gh.app_id, gh.app_private_key), **options)
        try:
            installation = app.rest.apps.get_repo_installation(gh.owner, gh.name).parsed_data
        except GitHubException as exc:
            raise failure(exc, gh.repo, "find the App's installation on") from None
        return GitHub(AppAuthStrategy(gh.app_id, gh.app_private_key).as_installation(installation.id), **options)
    raise GitHubConfigError("set GITHUB_TOKEN, or GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY(_PATH)")


def _pin_version(version: str) -> Callable[[httpx.Request], None]:
    """An httpx request hook: githubkit's generated methods send their own version; this one replaces it."""

    def pin(request: httpx.Request) -> None:
        request.headers[API_VERSION_HEADER] = version

    return pin


def failure(exc: Exception, repo: str, doing: str, needs: str = READ_ISSUES) -> GitHubFailure:
    """One sentence for a failed request: which repository, what was being done, what is missing."""
    if isinstance(exc, GitHubFailure):
        return exc
    if isinstance(exc, RateLimitExceeded):
        wait = exc.retry_after.total_seconds() if isinstance(exc.retry_after, timedelta) else 60.0
        return GitHubFailure("rate_limited", f"GitHub's rate limit was hit while trying to {doing} {repo}", 429, wait)
    if isinstance(exc, RequestFailed):
        status = exc.response.status_code
        later = rate_limit_wait(exc.response.raw_response)
        if later is not None:  # a rate limit, not a missing permission, though GitHub answers both with 403
            return GitHubFailure(
                "rate_limited",
                f"GitHub's rate limit was hit while trying to {doing} {repo}; try again in a few minutes",
                status,
                later,
            )
        if status == 401:
            return GitHubFailure(
                "auth",
                f"GitHub rejected the credentials while trying to {doing} {repo}: the token is "
                "expired or revoked; create a new one (or check the App's key) and set it again",
                status,
            )
        if status == 403:
            return GitHubFailure(
                "permission",
                f"GitHub refused to {doing} {repo}: the token or App lacks the '{needs}' permission on it",
                status,
            )
        request = exc.response.raw_request
        if (
            status == 400
            and API_VERSION_HEADER in request.headers
            and ("version" in _message(exc).lower() or request.method == "GET")
        ):
            sent = request.headers[API_VERSION_HEADER]
            return GitHubFailure(
                "invalid",
                f"GitHub does not accept REST API version {sent} (while trying to {doing} "
                f"{repo}): set ATLAS_GITHUB_API_VERSION to one this server supports, e.g. 2022-11-28 "
                "on GitHub Enterprise Server",
                status,
            )
        if status == 410 and "deleted" in _message(exc).lower():
            return GitHubFailure("not_found", f"GitHub says it was deleted (while trying to {doing} {repo})", status)
        if status == 410:
            return GitHubFailure(
                "invalid",
                f"GitHub answered 410 Gone while trying to {doing} {repo} ({_message(exc)}): "
                "what Atlas asked for was retired; check ATLAS_GITHUB_API_VERSION and GITHUB_API_URL",
                status,
            )
        if status == 404:
            return GitHubFailure(
                "not_found",
                f"GitHub could not find it while trying to {doing} {repo}: the repository "
                f"or issue does not exist, or the token or App has no '{needs}' access to it",
                status,
            )
        if status == 422:
            return GitHubFailure("invalid", f"GitHub rejected the request to {doing} {repo}: {_message(exc)}", status)
        return GitHubFailure(
            "unavailable", f"GitHub is unavailable (HTTP {status}) while trying to {doing} {repo}", status
        )
    if isinstance(exc, RequestTimeout):
        return GitHubFailure("unavailable", f"GitHub timed out while trying to {doing} {repo}")
    if isinstance(exc, (RequestError, httpx.HTTPError)):
        return GitHubFailure("unavailable", f"GitHub could not be reached while trying to {doing} {repo}")
    if isinstance(exc, AuthCredentialError):
        return GitHubFailure("auth", f"the GitHub App credentials are not usable to {doing} {repo}")
    return GitHubFailure("unavailable", f"GitHub failed while trying to {doing} {repo}")


def rate_limit_wait(response: httpx.Response, attempt: int = 0) -> float | None:
    """Seconds to wait before retrying a rate-limited answer (403 or 429), as GitHub's docs ask; None: not one.

    `retry-after` when present; until `x-ratelimit-reset` when `x-ratelimit-remaining` is 0; otherwise
    (a secondary limit without either header, or a bare 429) at least a minute, doubling with each
    `attempt` (0 for the first wait), up to MAX_BACKOFF_SECONDS.
    """
    if response.status_code not in (403, 429):
        return None
    headers = response.headers
    try:
        if "retry-after" in headers:
            return max(float(headers["retry-after"]), 0.0)
        if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
            return max(float(headers["x-ratelimit-reset"]) - time.time(), 0.0) + 1.0  # the reset second itself
    except ValueError:
        pass
    if response.status_code == 429 or is_secondary_limit(response) or headers.get("x-ratelimit-remaining") == "0":
        return min(SECONDARY_MIN_WAIT * 2.0**attempt, MAX_BACKOFF_SECONDS)
    return None


def is_secondary_limit(response: httpx.Response) -> bool:
    """GitHub's 403/429 whose message says a secondary rate limit was exceeded (headers may say nothing)."""
    return "secondary rate limit" in error_message(response)


def error_message(response: httpx.Response) -> str:
    """The `message` of a GitHub error body, lowercased, to tell apart answers that share a status; "" if none."""
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("message") or "").lower() if isinstance(body, dict) else ""


def _message(exc: RequestFailed) -> str:
    try:
        body = exc.response.raw_response.json()
    except ValueError:
        return "validation failed"
    text = str(body.get("message") or "validation failed") if isinstance(body, dict) else "validation failed"
    errors = body.get("errors") if isinstance(body, dict) else None
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        detail = errors[0].get("message") or errors[0].get("code")
        if detail:
            text = f"{text} ({detail})"
    return text[:200]
