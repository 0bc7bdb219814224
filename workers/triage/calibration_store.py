"""A live calibration's raw replays kept on disk per tracker revision (issue 36): a worker's first calibration
replays the latest WINDOW closed issues (some 6 s of CPU at 10,000 issues, `python -m bench triage`); a worker
started again on the same tracker reads them back instead.

The revision is a hash of everything a replay reads: each issue's text, labels, state and duplicate decision, in
order, and the engine's mode. Any change (a label set on an old issue, an edit, a new issue) gives another
revision, and the raws are replayed anew (in the process they are then kept and grown, rolling.live). A file that
is missing, unreadable or of another revision is ignored; one that cannot be written is skipped: the cache only
saves time, never changes a figure.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from workers.triage.history import History

FILE = "triage_calibration.json"
VERSION = 1  # bumped when what a replay computes changes, so an older file is replayed anew


def revision(history: History, mode: str) -> str:
    """The tracker as a calibration's replays read it, as one hash."""
    digest = hashlib.sha256(f"{VERSION}\0{mode}\0".encode())
    for r in history.records:
        row = (r.id, r.title, r.body, sorted(r.labels), r.state, r.duplicate_of, r.duplicate_since, r.created_at)
        digest.update(json.dumps(row, default=str).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def load(folder: Path | None, rev: str) -> dict[int, Any]:
    """The kept raws (issue -> what rolling.Raw holds, as JSON) of revision `rev`, or nothing."""
    if folder is None:
        return {}
    try:
        kept = json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict) or kept.get("revision") != rev or not isinstance(kept.get("raw"), dict):
        return {}
    return {int(k): v for k, v in kept["raw"].items()}


def save(folder: Path | None, rev: str, raw: dict[int, Any]) -> None:
    """Keep `raw` as revision `rev`'s, replacing any other (written whole, then renamed in)."""
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".calibration-")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"revision": rev, "raw": {str(k): v for k, v in raw.items()}}, out)
        os.replace(tmp, folder / FILE)
    except OSError:
        return
