"""One GitHub request as the sync makes it: conditional on a stored ETag, rate limits waited out.

A 304 (the ETag still matches) costs no rate limit and means "what you have is current". A
secondary rate limit (403 or 429, with `retry-after` or without) or a spent primary limit is
waited out as GitHub asks (atlas.github_client.rate_limit_wait) with the progress line saying so,
or, with `wait=False`, stops the sync with a `GitHubFailure`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from githubkit import GitHub
from githubkit.exception import GitHubException, GraphQLFailed, RateLimitExceeded, RequestFailed

from atlas.errors import GitHubFailure
from atlas.github_client import failure, rate_limit_wait
from datasets.github.budget import Budget
from datasets.github.store import Store
from datasets.sync_progress import Progress

log = logging.getLogger("atlas.github.sync")
LINK = re.compile(r'<([^>]+)>;\s*rel="([a-z]+)"')
PAGE = re.compile(r"[?&]page=(\d+)")
MAX_WAITS = 20


@contextmanager
def kept_open(client: GitHub[Any]) -> Iterator[None]:
    """One httpx client for every request inside: kept-alive connections and one TLS context. Outside such a
    block githubkit builds a client per request, and each loads the CA bundle (~0.1 s of CPU): a sync of
    10,000 blobs spent most of its time there. A caller that holds the client open already keeps it."""
    try:
        client.__enter__()  # type: ignore[no-untyped-call]  # githubkit leaves __enter__ unannotated
    except RuntimeError:  # githubkit: "Cannot enter sync context twice"
        yield
        return
    try:
        yield
    finally:
        client.__exit__(None, None, None)


@dataclass
class Page:
    """A listing page: its JSON (None on 304), its ETag and where the Link header says to go next."""

    data: Any
    etag: str | None
    next_url: str | None  # the Link header's rel="next", followed as given (GitHub may page by cursor)
    last_page: int | None
    rate_left: str | None

    @property
    def not_modified(self) -> bool:
        return self.data is None


@dataclass
class Counters:
    requests: int = 0
    not_modified: int = 0
    waited_seconds: float = 0.0


class Fetcher:
    """Makes the sync's requests through githubkit calls (`call(headers)` returns a githubkit Response)."""

    def __init__(
        self,
        client: GitHub[Any],
        store: Store,
        repo: str,
        progress: Progress,
        *,
        wait: bool,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client, self.store, self.repo, self.progress, self.wait, self.sleep = (
            client,
            store,
            repo,
            progress,
            wait,
            sleep,
        )
        self.counters = Counters()
        self.budget = Budget()  # the share of the hourly limit the per-item sources may spend (budget.py)

    def affordable(self) -> bool:
        """Whether a per-item source (a pull request's files, a blob) may make its next request."""
        return self.budget.allows(self.counters.requests)

    def get(self, key: str, call: Callable[[dict[str, str]], Any], *, doing: str, needs: str) -> Page:
        """The page at `key` (its canonical URL), conditional on its stored ETag."""
        etag = self.store.etag(key)
        headers = {"If-None-Match": etag} if etag else {}
        response = self._waited(lambda: call(headers), doing, needs)
        self.budget.seen(response.headers)
        links = {rel: url for url, rel in LINK.findall(response.headers.get("link", ""))}
        last = PAGE.search(links.get("last", ""))
        rate_left = response.headers.get("x-ratelimit-remaining")
        if response.status_code == 304:
            self.counters.not_modified += 1
            return Page(None, etag, None, None, rate_left)
        return Page(
            response.json(),
            response.headers.get("etag"),
            links.get("next"),
            int(last.group(1)) if last else None,
            rate_left,
        )

    def graphql(self, query: str, variables: dict[str, Any], *, doing: str, needs: str) -> dict[str, Any]:
        """One GraphQL query through githubkit (no ETags there: each costs a request), rate limits waited out as
        for REST. GitHub answers a query it refuses with 200 and `errors`: the first one becomes a GitHubFailure."""
        data: dict[str, Any] = self._waited(lambda: self.client.graphql.request(query, variables), doing, needs)
        return data

    def _waited(self, request: Callable[[], Any], doing: str, needs: str) -> Any:
        """`request()`, counted, with rate limits waited out (a RATE_LIMITED GraphQL error is githubkit's
        PrimaryRateLimitExceeded too) and every other failure mapped to a GitHubFailure."""
        for attempt in range(MAX_WAITS):
            self.counters.requests += 1
            try:
                return request()
            except RequestFailed as exc:
                if isinstance(exc, RateLimitExceeded) or rate_limit_wait(exc.response.raw_response) is not None:
                    self._wait(exc, doing, attempt)
                    continue
                raise failure(exc, self.repo, doing, needs) from None
            except GraphQLFailed as exc:
                raise _graphql_failure(exc, self.repo, doing, needs) from None
            except GitHubException as exc:
                raise failure(exc, self.repo, doing, needs) from None
        raise GitHubFailure("rate_limited", f"GitHub kept rate-limiting the sync of {self.repo}; try again later")

    def follow(self, url: str, *, doing: str, needs: str) -> Page:
        """The page at a `Link` URL GitHub gave (absolute, with its own query), conditional on an ETag stored for it.
        Only a URL on the API's own host is followed: the token never goes anywhere else."""
        base, there = httpx.URL(str(self.client.config.base_url)), httpx.URL(url)
        if (there.scheme, there.host, there.port) != (base.scheme, base.host, base.port):
            raise GitHubFailure(
                "unavailable",
                f"GitHub's Link header for {self.repo} pointed away from {base.host} "
                f"({there.host}); check GITHUB_API_URL",
            )
        return self.get(url, lambda h: self.client.request("GET", url, headers=h), doing=doing, needs=needs)

    def _wait(self, exc: RequestFailed, doing: str, attempt: int) -> None:
        seconds = rate_limit_wait(exc.response.raw_response, attempt)
        if seconds is None and isinstance(exc, RateLimitExceeded):
            seconds = exc.retry_after.total_seconds()
        seconds = 60.0 if seconds is None else seconds
        if not self.wait:
            raise GitHubFailure(
                "rate_limited",
                f"GitHub's rate limit is spent while trying to {doing} {self.repo}; "
                f"it resets in {seconds:.0f}s (run again then, or without --no-wait to wait)",
                exc.response.status_code,
                seconds,
            )
        self.progress.waiting(seconds, "rate limited")
        log.warning("rate limited on %s; waiting %.0fs", self.repo, seconds)
        self.counters.waited_seconds += seconds
        self.sleep(seconds)


def _graphql_failure(exc: GraphQLFailed, repo: str, doing: str, needs: str) -> GitHubFailure:
    """GitHub's GraphQL error types (FORBIDDEN, NOT_FOUND, ...) as the sync's failure kinds, naming the first error."""
    errors = exc.response.errors or []
    first = errors[0] if errors else None
    message = first.message[:200] if first else "no error message"
    kind = first.type if first else None
    if kind == "FORBIDDEN":
        return GitHubFailure(
            "permission",
            f"GitHub refused to {doing} {repo}: the token or App lacks the '{needs}' permission on it ({message})",
            403,
        )
    if kind == "NOT_FOUND":
        return GitHubFailure("not_found", f"GitHub could not find it while trying to {doing} {repo}: {message}", 404)
    return GitHubFailure("invalid", f"GitHub refused the query to {doing} {repo}: {message}", 422)
