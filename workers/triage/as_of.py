"""The issue tracker as the read tools see it in a model backtest: as of one issue's creation.

The model's replay (model_backtest.py) runs the worker's triage call (model_triage.suggest) with the
real read tools; only the store behind `search_issues` and `get_issue` is this view, masked exactly as
the offline replay is (history.py): an issue exists only if it was opened before the replayed one
(`seq < before`); its title and body are those it was opened with; its duplicate decision shows only
once it was made before (`duplicate_since`), its state is `closed` only if it was closed before, and
its comments are those dated before (an undated comment never shows). Its labels are its labels now:
the one look past the point in time that the data forces (the offline engine votes with them too).
Search ranks with the offline engine's own as-of index (similarity.AsOfIndex: term weights from the
earlier issues only), not the tracker's full-text index, whose ranking counts later issues' words.
"""

from __future__ import annotations

from pathlib import Path

from tools.issue_store import Comment, Issue, IssueStore, Match, State
from workers.triage.history import History, Record, known_before
from workers.triage.similarity import AsOfIndex, features


class AsOfIssues(IssueStore):
    """`IssueStore`'s reads over the issues opened before `before` (a seq), as they stood at `when`."""

    def __init__(self, db: Path, history: History, index: AsOfIndex, before: int, when: str) -> None:
        super().__init__(db)  # the tracker database: authors, closing dates and comments, masked below
        self.history, self.index, self.before, self.when = history, index, before, when

    def _earlier(self, issue_id: int) -> Record | None:
        record = self.history.get(issue_id)
        return record if record is not None and record.seq < self.before else None

    def matches(self, query: str, state: State | None = None, limit: int = 10) -> list[Match]:
        """Best matches first by the as-of index; only earlier issues, in the state they had then. `search` reads
        these too (IssueStore.search), so neither of the tools' two ways in sees the tracker's full index."""
        found: list[Match] = []
        for near in self.index.nearest(features(query, ""), self.before, self.before):
            issue = self.get(self.history.records[near.seq].id)
            if issue is not None and (state is None or issue.state == state):
                found.append(Match(issue, False, near.similarity))  # one grade: the as-of order is kept as it is
            if len(found) >= limit:
                break
        return found

    def get(self, issue_id: int) -> Issue | None:
        record = self._earlier(issue_id)
        if record is None:
            return None
        full = super().get(issue_id)
        closed_at = full.closed_at if full is not None and known_before(full.closed_at, self.when) else None
        duplicate = record.duplicate_of if known_before(record.duplicate_since, self.when) else None
        return Issue(
            record.id,
            record.title,
            record.body,
            "closed" if closed_at else "open",
            full.author if full is not None else None,
            record.created_at,
            closed_at,
            duplicate,
            len(self.comments(issue_id)),
        )

    def comments(self, issue_id: int) -> list[Comment]:
        if self._earlier(issue_id) is None:
            return []
        return [c for c in super().comments(issue_id) if known_before(c.created_at, self.when)]

    def labels(self, issue_ids: list[int]) -> dict[int, list[str]]:
        return {i: sorted(r.labels) for i in issue_ids if (r := self._earlier(i)) is not None}

    def id_range(self) -> tuple[int, int, int]:
        ids = [r.id for r in self.history.records[: self.before]]
        return (min(ids), max(ids), len(ids)) if ids else (0, 0, 0)

    def known_labels(self) -> list[str]:
        """The labels used on the earlier issues: the only ones the offline engine knows as of then."""
        return sorted({n for r in self.history.records[: self.before] for n in r.labels})
