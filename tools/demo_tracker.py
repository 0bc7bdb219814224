"""The Orbit demo's tracker: SQLite, with every write journaled.

`SqliteTracker` appends each write to `issues/writes.db` and applies it to `issues/index.db` in place, so the read
tools (which open index.db read-only) see it at once and a rebuild of index.db replays it
(datasets/tracker_journal.py explains why the journal exists). It implements `Tracker` (tools/tracker.py).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from datasets import tracker_journal as journal
from datasets.tracker_db import connect_readonly, db_path, storable_id
from tools.errors import TrackerError, TrackerUnavailable
from tools.tracker import BOT_AUTHOR, CloseReason, IssueRef, Tracker, epoch

log = logging.getLogger("atlas.tracker")


class SqliteTracker:
    """The Orbit demo tracker: reads index.db read-only, writes through the journal (see module doc)."""

    def for_repo(self, repo: str) -> Tracker | None:
        """Itself: the demo is one repository, whatever it is called."""
        return self

    def __init__(self, data_dir: Path, issues_base_url: str | None = None, home: Path | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.db = db_path(self.data_dir, home)  # beside the data, or under ATLAS_HOME (datasets/derived.py)
        self.journal = journal.journal_path(self.data_dir, home)
        self.base_url = issues_base_url.rstrip("/") if issues_base_url else None
        self._behind = False  # a write of this process is journaled but not yet in index.db

    def url(self, number: int) -> str | None:
        """The issue's web page: `{id}` in the base URL is replaced, else the number is appended."""
        if not self.base_url:
            return None
        return self.base_url.replace("{id}", str(number)) if "{id}" in self.base_url else f"{self.base_url}/{number}"

    def issue(self, number: int) -> IssueRef | None:
        if not storable_id(number):
            return None
        with self._reading() as conn:
            row = conn.execute(
                "SELECT id, title, state, duplicate_of, closed_at FROM issues WHERE id = ?", (number,)
            ).fetchone()
            if row is None:
                return None
            labels = tuple(
                r[0]
                for r in conn.execute(
                    "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
                    "WHERE il.issue_id = ? ORDER BY l.name",
                    (number,),
                )
            )
        return IssueRef(
            row["id"],
            row["title"],
            row["state"],
            labels,
            self.url(row["id"]),
            row["duplicate_of"],
            closed_at=epoch(row["closed_at"]) if row["state"] == "closed" else None,
        )

    def known_labels(self) -> list[str]:
        with self._reading() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM labels ORDER BY name")]

    def add_labels(self, number: int, labels: list[str], *, key: str | None = None) -> IssueRef:
        self._require(number)
        unknown = sorted(set(labels) - set(self.known_labels()))
        if unknown:
            raise TrackerError(f"unknown labels: {', '.join(unknown)}")
        before = self._require(number)
        if self._write("add_labels", number, {"labels": list(dict.fromkeys(labels))}, key):
            return self._require(number)
        return replace(before, labels=tuple(sorted({*before.labels, *labels})))

    def post_comment(self, number: int, body: str, *, key: str | None = None) -> str:
        self._require(number)
        count = self._comment_count(number) + 1  # what it will be once applied
        if self._write("comment", number, {"body": body}, key):
            count = self._comment_count(number)
        return self.url(number) or f"issue #{number}, comment {count}"

    def _comment_count(self, number: int) -> int:
        with self._reading() as conn:
            return int(conn.execute("SELECT comment_count FROM issues WHERE id = ?", (number,)).fetchone()[0])

    def close_issue(
        self, number: int, reason: CloseReason, duplicate_of: int | None, *, key: str | None = None
    ) -> IssueRef:
        issue = self._require(number)
        if issue.state == "closed":
            raise TrackerError(f"issue #{number} is already closed")
        if reason == "duplicate":
            if duplicate_of is None or duplicate_of == number or self.issue(duplicate_of) is None:
                raise TrackerError("a duplicate needs duplicate_of: another existing issue")
        original = duplicate_of if reason == "duplicate" else None
        if self._write("close", number, {"reason": reason, "duplicate_of": original}, key):
            return self._require(number)
        return replace(issue, state="closed", duplicate_of=original or issue.duplicate_of)

    def reopen_issue(self, number: int, *, key: str | None = None) -> IssueRef:
        issue = self._require(number)
        if issue.state != "closed":
            raise TrackerError(f"issue #{number} is not closed")
        applied = self._write("reopen", number, {}, key)
        return (
            self._require(number) if applied else replace(issue, state="open", closed_at=None, state_reason="reopened")
        )

    def remove_labels(self, number: int, labels: list[str], *, key: str | None = None) -> IssueRef:
        issue = self._require(number)
        gone = [n for n in dict.fromkeys(labels) if n in issue.labels]
        if gone and not self._write("remove_labels", number, {"labels": gone}, key):
            return replace(issue, labels=tuple(n for n in issue.labels if n not in gone))
        return self._require(number)

    def create_issue(self, title: str, body: str, labels: list[str], *, key: str | None = None) -> IssueRef:
        unknown = sorted(set(labels) - set(self.known_labels()))
        if unknown:
            raise TrackerError(f"unknown labels: {', '.join(unknown)}")
        try:
            with journal.locked(self.journal.parent):
                number = self._next_number()
                journal.append(
                    self.journal,
                    "create",
                    number,
                    {"title": title, "body": body, "labels": labels},
                    author=BOT_AUTHOR,
                    key=key,
                )
                self._apply_journal()
        except (OSError, sqlite3.Error) as exc:
            log.exception("tracker write to %s failed", self.journal)
            raise TrackerUnavailable("the tracker's storage could not be written") from exc
        return IssueRef(number, title, "open", tuple(sorted(labels)), self.url(number))

    def _next_number(self) -> int:
        """One past the highest issue number in index.db or created in the journal (call under the journal's lock)."""
        with self._reading() as conn:
            highest = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM issues").fetchone()[0])
        created = [e.issue_id for e in journal.entries(self.journal) if e.kind == "create"]
        return max([highest, *created]) + 1

    def settle(self, tool: str, arguments: dict[str, Any], key: str) -> str | None:
        """An in-doubt call is settled by the journal: a write journaled under its key happened (a worker
        killed before index.db caught up leaves exactly that); it is applied now, so reads show it."""
        entry = journal.find(self.journal, key)
        if entry is None:
            return None
        self._catch_up()
        number = entry.issue_id
        issue = self.issue(number)
        title = issue.title if issue else ""
        if entry.kind == "add_labels":
            added = list(entry.data.get("labels") or [])
            have = sorted({*(issue.labels if issue else ()), *added})
            return f'Labeled #{number} "{title}" with {", ".join(added)}. Its labels now: {", ".join(have)}.'
        if entry.kind == "comment":
            return f"Posted the comment on #{number} ({self.url(number) or f'issue #{number}'})."
        if entry.kind in ("reopen", "remove_labels"):
            return (
                f"Reopened #{number}."
                if entry.kind == "reopen"
                else f"Removed {', '.join(entry.data.get('labels') or [])} from #{number}."
            )
        if entry.kind == "create":
            url = self.url(number)
            return f'Filed #{number} "{entry.data.get("title")}"' + (f": {url}" if url else ".")
        original = entry.data.get("duplicate_of")
        how = (
            f"as a duplicate of #{original}"
            if original
            else f"as {str(entry.data.get('reason') or 'completed').replace('_', ' ')}"
        )
        return f'Closed #{number} "{title}" {how}.'

    def _require(self, number: int) -> IssueRef:
        issue = self.issue(number)
        if issue is None:
            raise TrackerError(f"no issue #{number}")
        return issue

    def _write(self, kind: journal.Kind, number: int, data: dict[str, Any], key: str | None) -> bool:
        """Journal the write (the moment it happens), then apply it to index.db. True when applied; False
        when only journaled (index.db stayed locked): it happened all the same, and is applied by the next
        read here, the next write or a rebuild. Raises TrackerUnavailable only when nothing was journaled."""
        try:
            with journal.locked(self.journal.parent):
                journal.append(self.journal, kind, number, data, author=BOT_AUTHOR, key=key)
                return self._apply_journal()
        except (OSError, sqlite3.Error) as exc:  # the journal itself: disk full, folder gone
            log.exception("tracker write to %s failed", self.journal)
            # A fixed phrase: this text can reach the model and a Slack card; paths and errors stay in the log.
            raise TrackerUnavailable("the tracker's storage could not be written") from exc

    def _apply_journal(self) -> bool:
        """Bring index.db up to the journal (under the journal's lock); False, remembered, when it could not."""
        try:
            journal.sync(self.db, self.journal)
        except (OSError, sqlite3.Error) as exc:  # index.db locked past the timeout: the journal holds the write
            log.warning(
                "tracker: %s not yet applied to %s (%s); applied on the next read or write",
                self.journal.name,
                self.db.name,
                type(exc).__name__,
            )
            self._behind = True
            return False
        self._behind = False
        return True

    def _catch_up(self) -> None:
        """Apply what the journal holds and index.db does not yet show (a failed apply, a killed writer)."""
        try:
            with journal.locked(self.journal.parent):
                self._apply_journal()
        except OSError:
            log.warning("tracker: could not lock %s to catch up", self.journal.parent)

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection; any SQLite failure, opening or querying, becomes TrackerUnavailable."""
        if self._behind:
            self._catch_up()
        try:
            conn = connect_readonly(self.db)
        except sqlite3.Error as exc:
            log.exception("tracker database %s unavailable", self.db)
            raise TrackerUnavailable("the tracker's database could not be opened") from exc
        try:
            yield conn
        except sqlite3.Error as exc:
            log.exception("tracker query on %s failed", self.db)
            raise TrackerUnavailable("the tracker's database could not be read") from exc
        finally:
            conn.close()


@functools.lru_cache(maxsize=16)
def demo_tracker(data_dir: Path, issues_base_url: str | None = None, home: Path | None = None) -> SqliteTracker:
    """The SQLite tracker of a data folder (one per folder per process)."""
    return SqliteTracker(data_dir, issues_base_url, home)
