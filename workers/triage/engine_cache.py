"""A worker process's triage engine, opened once and kept while the tracker it was read from is unchanged.

Opening a triage (`Triage.open`) reads and indexes the whole issue history: about 2.6 s of CPU at 10,000
issues, against some 40 ms for the triage itself (`python -m bench triage`). A worker keeps one engine per
process (its runtime holds this cache, never a module global) and every job's thread reads it: an engine is
not changed once built, so threads share it. It is keyed on what would make it stale: the tracker database's
identity (device, inode: a rebuild renames a new file in) and its size, mtime and stamp (in-place writes: the
demo tracker's journal, a webhook's issues), and the data folder, home, semantic flag and docs it was opened
with. When only the database changed and it only gained issues (a webhook's `issues.opened`, labels set or an
issue closed meanwhile), the kept engine is grown by the new issues (`Triage.grown`), not rebuilt.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from datasets.tracker_db import ensure_db, read_meta
from tools.docsearch.pages import DOC_SUFFIXES
from workers.triage.engine import Triage
from workers.triage.history import History

Place = tuple[str, str | None, bool, tuple[tuple[str, int, int], ...]]  # data dir, home, semantic, docs' stats
DbState = tuple[int, int, int, int, str, str]  # device, inode, size, mtime (ns), source stamp, journal seq


@dataclass(frozen=True)
class Kept:
    place: Place
    db: DbState
    engine: Triage


class EngineCache:
    """The triage engine of this process's data folder; `engine()` is safe from any number of job threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # one reader of the history at a time; the others wait for its engine
        self._kept: Kept | None = None
        self.opened = 0  # full opens (read and indexed from nothing), for the bench and tests
        self.grown = 0  # opens avoided by growing the kept engine

    def engine(self, data_dir: Path, home: Path | None, semantic: bool) -> Triage:
        """The engine `Triage.open(data_dir, home, semantic)` would give now: the kept one when nothing it
        was read from changed, grown when the tracker only gained issues, else opened anew."""
        with self._lock:
            db = ensure_db(Path(data_dir), home)  # rebuilt first if issues.jsonl changed, as Triage.open does
            place, state = _place(data_dir, home, semantic), _db_state(db)
            kept = self._kept
            if kept is not None and kept.place == place and kept.db == state:
                return kept.engine
            history = History.from_db(db)
            engine = kept.engine.grown(history) if kept is not None and kept.place == place else None
            if engine is None:
                engine = Triage.open(data_dir, home, semantic, history)
                self.opened += 1
            else:
                self.grown += 1
            self._kept = Kept(place, state, engine)
            return engine


def _place(data_dir: Path, home: Path | None, semantic: bool) -> Place:
    """The folder, home and flag the engine is opened with, and each docs page's (name, size, mtime):
    the drafted replies point into the docs as they were read."""
    docs: list[tuple[str, int, int]] = []
    try:
        with os.scandir(os.path.join(data_dir, "docs")) as entries:
            for entry in entries:
                if entry.name.endswith(DOC_SUFFIXES):
                    st = entry.stat()
                    docs.append((entry.name, st.st_size, st.st_mtime_ns))
    except OSError:
        pass
    return os.path.realpath(data_dir), None if home is None else os.path.realpath(home), semantic, tuple(sorted(docs))


def _db_state(db: Path) -> DbState:
    """Which database file this is and how it stands: a rename changes the inode, a write in place the size or
    mtime, and the stamp in `meta` covers a write within the file system's mtime granularity."""
    st = os.stat(db)
    meta = read_meta(db)
    return (
        st.st_dev,
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
        meta.get("source_sha256", ""),
        meta.get("journal_seq", ""),
    )
