"""How much of GitHub's hourly request limit a sync may spend, and the caps on what it reads.

A token or App installation gets 5,000 REST requests an hour (`x-ratelimit-limit`), shared by everything
Atlas does with it: maintainers' questions, triage, approved writes. The listings (issues, comments,
labels) always run: they are few pages, and 304s when nothing changed. The sources that cost a request
per item (pull requests' files, docs and code blobs) stop once the sync has spent SHARE of the limit, or
GitHub's own `x-ratelimit-remaining` says only the rest is left, and say what they left for the next sync
(which goes on from there: what was read is remembered). Within them: docs over MAX_DOC_BYTES, symlinks,
and one-line minified files are left out, and GitHub lists at most 3,000 files of a pull request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

SHARE = 0.5  # of the hourly limit, for one sync's per-item sources; the other half is left for interactive work
DEFAULT_LIMIT = 5000  # GitHub's REST limit an hour, until a response says otherwise
MAX_DOC_BYTES = 512 * 1024  # a 2 MB page is an export, not a doc a person wrote
MINIFIED_LINE_CHARS = 2000  # lines averaging longer than this are minified or generated, not code to read
PULL_FILES_CUT = 3000  # GitHub's pulls/list-files answers at most this many files of a pull request


@dataclass
class Budget:
    """What the sync has seen of its rate limit, and what it left out because of it or of the caps."""

    limit: int = DEFAULT_LIMIT
    remaining: int | None = None
    left_out: list[str] = field(default_factory=list)  # sentences for the report and the log
    at_reserve: bool = False  # stopped by GitHub's remaining, not by what this sync spent

    def seen(self, headers: Mapping[str, str]) -> None:
        """Take GitHub's rate-limit headers from a response (the REST ones: GraphQL has its own points)."""
        if headers.get("x-ratelimit-resource", "core") != "core":
            return
        limit, remaining = headers.get("x-ratelimit-limit"), headers.get("x-ratelimit-remaining")
        if limit and limit.isdigit():
            self.limit = int(limit)
        if remaining and remaining.isdigit():
            self.remaining = int(remaining)

    def allows(self, spent: int) -> bool:
        """Whether a per-item source may make one more request, `spent` being the sync's requests so far."""
        reserve = self.limit * (1 - SHARE)
        if self.remaining is not None and self.remaining <= reserve:
            self.at_reserve = spent < self.limit * SHARE  # spent before this sync (by others, or an earlier sync)
            return False
        return spent < self.limit * SHARE

    def note(self, sentence: str) -> None:
        if sentence not in self.left_out:
            self.left_out.append(sentence)

    def spent_note(self, what: str, count: int) -> None:
        """`count` items of `what` not read in this sync because its share of the limit is spent."""
        why = (
            f"GitHub's remaining requests this hour are down to the {1 - SHARE:.0%} of its {self.limit} kept"
            if self.at_reserve
            else f"this sync spent its share ({SHARE:.0%}) of GitHub's {self.limit} requests an hour, the rest is kept"
        )
        self.note(f"{count} {what} left for the next sync: {why} for questions, triage and approved writes")


def minified(text: str) -> bool:
    """One very long line (or a few): minified or generated, useless to search and costly to embed."""
    return len(text) > MINIFIED_LINE_CHARS and len(text) / (text.count("\n") + 1) > MINIFIED_LINE_CHARS
