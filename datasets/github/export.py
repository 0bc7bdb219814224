"""The folder the tools read, written from a synced repository's staging store.

`issues/issues.jsonl` holds every issue (never a pull request) with its comments, in number order, one JSON
object a line; `knowledge/pulls.jsonl` the pull requests. Each is rewritten whole through a temporary file
renamed into place, so readers never see half a file, under `exporting(folder)` so no two exports interleave.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from datasets import derived
from datasets.export_lock import EXPORT_LOCK
from datasets.knowledge_files import PULLS, write_jsonl
from datasets.tracker_db import SOURCE

COMMENTS_OF = "SELECT record FROM comments WHERE issue_number = ? ORDER BY created_at, id"
ALL_COMMENTS = "SELECT issue_number, record FROM comments ORDER BY issue_number, created_at, id"


@contextmanager
def exporting(folder: Path) -> Iterator[None]:
    """Serialize exports of one folder across processes (a sync, webhook jobs, tracker writes)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / EXPORT_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def exported(conn: sqlite3.Connection, number: int) -> dict[str, Any] | None:
    """One issue exactly as `write_issues` writes it (with its comments); None for a pull request or a gone issue."""
    row = conn.execute("SELECT record FROM issues WHERE number = ? AND is_pr = 0", (number,)).fetchone()
    if row is None:
        return None
    comments = [json.loads(c) for (c,) in conn.execute(COMMENTS_OF, (number,))]
    return {**json.loads(row[0]), "comments": comments}


def write_issues(folder: Path, conn: sqlite3.Connection) -> tuple[Path, str]:
    """Stream every issue (not pull requests) with its comments into issues/issues.jsonl, atomically; the caller
    holds `exporting(folder)`. Returns the file and the sha256 of what was written (the index's stamp: it need not
    read the file again). One pass over the issues and one over the comments, both in number order, merged: a
    query per issue cost a 2,000-issue export most of its time."""
    target = folder / SOURCE
    target.parent.mkdir(parents=True, exist_ok=True)
    derived.mark(folder)  # Atlas made this folder: its index lives beside the data (datasets/derived.py)
    fd, tmp = tempfile.mkstemp(prefix=".issues.", suffix=".tmp", dir=target.parent)
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out:
            issues = conn.execute("SELECT number, record FROM issues WHERE is_pr = 0 ORDER BY number")
            comments = conn.execute(ALL_COMMENTS)  # the same read transaction: both cursors see one commit
            pending = comments.fetchone()
            for number, record in issues:
                while pending is not None and pending[0] < number:  # a pull request's comments
                    pending = comments.fetchone()
                own = []
                while pending is not None and pending[0] == number:
                    own.append(pending[1])
                    pending = comments.fetchone()
                line = (record[:-1] + ',"comments":[' + ",".join(own) + "]}\n").encode("utf-8")
                digest.update(line)
                out.write(line)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target, digest.hexdigest()


def write_pulls(folder: Path, conn: sqlite3.Connection) -> Path:
    """The pull requests the issue listing brought (title, description, author, merge date; the issues they
    close are read from "fixes #N" in the description) with the paths they changed (github_pull_files) as
    knowledge/pulls.jsonl, atomically (issue 27)."""

    def rows() -> Iterator[dict[str, Any]]:
        for record, files in conn.execute(
            "SELECT i.record, f.files FROM issues i LEFT JOIN pull_files f"
            " ON f.number = i.number WHERE i.is_pr = 1 ORDER BY i.number"
        ):
            pr = json.loads(record)
            state = "merged" if pr.get("merged_at") else pr.get("state") or "open"
            yield {
                "number": pr["id"],
                "title": pr["title"],
                "body": pr["body"],
                "author": pr["author"],
                "state": state,
                "created_at": pr["created_at"],
                "merged_at": pr.get("merged_at"),
                "closes": [],
                "files": json.loads(files or "[]"),
                "url": pr["url"],
            }

    write_jsonl(folder / PULLS, rows())
    return folder / PULLS
