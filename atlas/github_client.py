"""The githubkit client for the configured repository, and GitHub's failures mapped to our own.

Auth is a fine-grained token (`GITHUB_TOKEN`) or a GitHub App: the App's installation is found
from the repository (`GET /repos/{o}/{r}/installation` with the App's JWT) and githubkit's
installation strategy mints tokens and refreshes them a minute before their hour is up.
githubkit's HTTP cache and automatic retries are off: the sync keeps its own ETags on disk (so a
304 survives restarts) and waits out rate limits itself, saying so on its progress line.
"""

from __future__ import annotations

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
TIMEOUT_SECONDS = 15.0
# What each kind of access needs on a fine-grained token or a GitHub App installation.
READ_ISSUES = "Issues: read"
WRITE_ISSUES = "Issues: read and write"
READ_CONTENTS = "Contents: read"


def client(gh: GitHubSettings) -> GitHub[Any]:
    """A sync githubkit client for the repository's credentials, at `GITHUB_API_URL` when set."""
    options: dict[str, Any] = dict(base_url=gh.api_url, user_agent=USER_AGENT, timeout=httpx.Timeout(TIMEOUT_SECONDS),
                   http_cache=False, auto_retry=False)
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


def failure(exc: Exception, repo: str, doing: str, needs: str = READ_ISSUES) -> GitHubFailure:
    """One sentence for a failed request: which repository, what was being done, what is missing."""
    if isinstance(exc, GitHubFailure):
        return exc
    if isinstance(exc, RateLimitExceeded):
        wait = exc.retry_after.total_seconds() if isinstance(exc.retry_after, timedelta) else 60.0
        return GitHubFailure("rate_limited", f"GitHub's rate limit was hit while trying to {doing} {repo}", 429, wait)
    if isinstance(exc, RequestFailed):
        status = exc.response.status_code
        if status == 401:
            return GitHubFailure("auth", f"GitHub rejected the credentials while trying to {doing} {repo}: the token is "
                                 "expired or revoked; create a new one (or check the App's key) and set it again", status)
        if status == 403:
            return GitHubFailure("permission", f"GitHub refused to {doing} {repo}: the token or App lacks the "
                                 f"'{needs}' permission on it", status)
        if status in (404, 410):
            return GitHubFailure("not_found", f"GitHub could not find it while trying to {doing} {repo}: the repository "
                                 f"or issue does not exist, or the token or App has no '{needs}' access to it", status)
        if status == 422:
            return GitHubFailure("invalid", f"GitHub rejected the request to {doing} {repo}: {_message(exc)}", status)
        return GitHubFailure("unavailable", f"GitHub is unavailable (HTTP {status}) while trying to {doing} {repo}", status)
    if isinstance(exc, RequestTimeout):
        return GitHubFailure("unavailable", f"GitHub timed out while trying to {doing} {repo}")
    if isinstance(exc, (RequestError, httpx.HTTPError)):
        return GitHubFailure("unavailable", f"GitHub could not be reached while trying to {doing} {repo}")
    if isinstance(exc, AuthCredentialError):
        return GitHubFailure("auth", f"the GitHub App credentials are not usable to {doing} {repo}")
    return GitHubFailure("unavailable", f"GitHub failed while trying to {doing} {repo}")


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait from `retry-after`, or until `x-ratelimit-reset` when the limit is spent; None: go on."""
    headers = response.headers
    if "retry-after" in headers:
        try:
            return max(float(headers["retry-after"]), 0.0)
        except ValueError:
            return 60.0
    if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
        import time

        try:
            return max(float(headers["x-ratelimit-reset"]) - time.time(), 0.0)
        except ValueError:
            return 60.0
    return None


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
