"""How the GitHub tracker's requests reach one repository, and what their answers change in the synced folder.

Writes go one at a time per repository, a second apart (tools/github/pacing.py); a rate-limited request is
retried after GitHub's wait (`retry-after`, the reset of a spent limit, else a minute doubling each time;
atlas/github_client.py), waited outside the write turn, up to MAX_RATE_LIMIT_RETRIES times. A write's 5xx,
timeout or broken connection after sending is `TrackerInDoubt`, not a failure (tools/github/tracker.py
settles it). 401/403/404/422 become `TrackerError` with a sentence a maintainer can act on; 5xx, timeouts and
exhausted rate limits become `TrackerUnavailable`. Redirects are never followed: a transferred issue (301)
and a deleted one (410) are refused with "nothing was done" and leave the synced folder at once
(tools/github/refusals.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar, cast

import httpx
from githubkit import GitHub, Response
from githubkit.exception import GitHubException, RequestError, RequestFailed, RequestTimeout

from atlas import served_repos
from atlas.errors import GitHubFailure
from atlas.github_client import WRITE_ISSUES, failure, rate_limit_wait
from atlas.project_settings import GitHubSettings
from datasets.github import index as github_index
from datasets.github import store as github_store
from tools import send_guard
from tools.errors import TrackerError, TrackerInDoubt, TrackerUnavailable
from tools.github import refusals
from tools.github.pacing import WritePacer

log = logging.getLogger("atlas.tracker.github")
T = TypeVar("T")
MAX_RATE_LIMIT_RETRIES = 3  # 1 + 2 + 4 minutes of backoff, well inside a run job's time limit
MAX_RETRY_WAIT = 600.0  # a limit that resets later than this fails now, saying so, instead of holding a worker


class RepositoryCalls:
    """One repository's REST calls: the client (redirects off), pacing, rate-limit retries, errors mapped;
    and the synced folder each answer is applied to. The GitHub tracker says which calls to make."""

    guards_sends = True  # every write asks tools/send_guard.py in its turn, right before sending

    def __init__(
        self,
        gh: GitHubSettings,
        client: Callable[[], GitHub[Any]],
        folder: Path | None,
        pacer: WritePacer,
        *,
        sleep: Callable[[float], None] = time.sleep,
        build_index: bool = True,
    ) -> None:
        self.gh, self._client, self.folder, self.pacer, self.sleep = gh, client, folder, pacer, sleep
        self.build_index = build_index
        self._github: GitHub[Any] | None = None

    @property
    def github(self) -> GitHub[Any]:
        if self._github is None:
            try:
                github = self._client()
            except GitHubFailure as exc:
                raise self._mapped(exc) from None
            if github.config.follow_redirects:  # a followed 301 re-sends a write to another repository's issue
                github = GitHub(github.auth, config=replace(github.config, follow_redirects=False))
            self._github = github
        return self._github

    def _write(self, action: Callable[[], T], doing: str, number: int | None) -> T:
        """A write in the pacer's turn; a timeout or 5xx after sending it is `TrackerInDoubt`, not a failure. A
        repository the App's installation removed or suspended is refused before anything is sent."""
        why = served_repos.withdrawn(self.pacer.conn, self.gh.repo)
        if why is not None:
            raise TrackerError(f"{why}; nothing was done")
        try:
            return self._call(action, doing, WRITE_ISSUES, number=number, turn=self.pacer.turn)
        except _Unconfirmed as exc:
            raise TrackerInDoubt(
                f"GitHub did not confirm the request to {doing} {self.gh.repo} ({exc}), "
                "so it may or may not have happened"
            ) from None

    def _call(
        self,
        action: Callable[[], T],
        doing: str,
        needs: str,
        *,
        number: int | None = None,
        turn: Callable[[], AbstractContextManager[None]] | None = None,
    ) -> T:
        """One request, retried after each rate-limit wait. `turn` (the write pacer's, for a write) is held only
        while sending; a write's 5xx, timeout or broken connection is `_Unconfirmed`."""
        for attempt in range(MAX_RATE_LIMIT_RETRIES + 1):
            try:
                with turn() if turn is not None else nullcontext():
                    if turn is not None:
                        send_guard.before_send()  # in the turn, so a claim that waited for it stays resumable
                    result = action()
                if isinstance(result, Response) and result.status_code in refusals.REDIRECTS:
                    raise self._moved(result.raw_response, number)
                return result
            except RequestFailed as exc:
                if exc.response.status_code >= 500 and turn is not None:
                    raise _Unconfirmed(f"HTTP {exc.response.status_code}") from None
                if (
                    exc.response.status_code == 410
                    and number is not None
                    and refusals.is_deleted(exc.response.raw_response)
                ):
                    self._forget(number)
                    raise refusals.deleted(number, self.gh.repo) from None
                wait = rate_limit_wait(exc.response.raw_response, attempt)
                if wait is not None and attempt < MAX_RATE_LIMIT_RETRIES and wait <= MAX_RETRY_WAIT:
                    log.warning("GitHub rate limit on %s; waiting %.0fs", self.gh.repo, wait)
                    self.sleep(wait)
                    continue
                raise self._mapped(failure(exc, self.gh.repo, doing, needs)) from None
            except GitHubException as exc:
                if turn is not None and _maybe_sent(exc):
                    raise _Unconfirmed(
                        "no answer in time" if isinstance(exc, RequestTimeout) else "the connection broke"
                    ) from None
                raise self._mapped(failure(exc, self.gh.repo, doing, needs)) from None
        raise TrackerUnavailable(
            f"GitHub kept rate-limiting requests to {self.gh.repo}"
        )  # not reached: the last attempt raises

    def _moved(self, response: Any, number: int | None) -> TrackerError:
        renamed = refusals.repository_renamed(response, self.gh.repo)
        if renamed is not None:
            return renamed
        target = refusals.redirect_target(response)
        if number is None:
            return TrackerError(f"GitHub redirected the request to {target}; nothing was done")
        self._forget(number)
        return refusals.transferred(number, target)

    @staticmethod
    def _mapped(exc: GitHubFailure) -> Exception:
        if exc.kind in ("unavailable", "rate_limited"):
            return TrackerUnavailable(exc.message)
        error = TrackerError(exc.message)
        error.status = exc.status  # type: ignore[attr-defined]
        return error

    def _forget(self, number: int) -> None:
        """A transferred or deleted issue leaves the synced folder, so search no longer offers it."""
        self._apply(lambda store: store.delete_issue(number))

    def _apply(self, change: Callable[[github_store.Store], Any]) -> None:
        if self.folder is None:
            return
        try:
            github_index.apply(self.folder, change, build_index=self.build_index)
        except Exception:  # the write happened on GitHub; the next sync or webhook brings the folder up to date
            log.exception("could not apply a GitHub write to %s", self.folder)


class _Unconfirmed(Exception):
    """A write was sent and no answer says whether it was applied (5xx, timeout, a broken connection)."""


def _maybe_sent(exc: GitHubException) -> bool:
    """Whether a request that failed without an HTTP answer may have reached GitHub (not a failed connect)."""
    if not isinstance(exc, RequestError) or isinstance(exc, RequestFailed):
        return False
    origin = getattr(exc, "exc", None)
    return not isinstance(origin, (httpx.ConnectError, httpx.ConnectTimeout))


def json_object(response: Response[Any]) -> dict[str, Any]:
    """A response's JSON object, as the folder stores it (GitHub's raw fields, not githubkit's models)."""
    return cast(dict[str, Any], response.json())


def json_array(response: Response[Any]) -> list[dict[str, Any]]:
    """A response's JSON array of objects (a page of labels or comments)."""
    return cast(list[dict[str, Any]], response.json())
