"""Where a data folder's derived files live: beside the data when Atlas made the folder, else under ATLAS_HOME.

Derived files are the issues' search database (`issues/index.db`), the docs sections' embeddings
(`issues/docs_vectors.db`), the demo tracker's journal of writes (`issues/writes.db`) and their lock. Atlas writes them
beside the data only in a folder it made, one that holds the marker file `.atlas-data` (the bundled demo, written by
`atlas dataset build`; a synced GitHub repository, by `atlas sync github`). Any other folder (someone else's export, a
read-only copy) is only ever read: its derived files go to `ATLAS_HOME/data/<folder name>-<hash of its path>/issues/`,
so two data folders never share an index. The rule is the marker, not the permission bits: root may write anywhere, and
a writable folder can still be someone else's. Callers with no settings at hand (tests, benchmarks) pass no home: a
folder Atlas made keeps its files beside it as always; any other folder's go under the system's temporary folder, never
into the folder itself (a benchmark once left an index inside a read-only evaluation set).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

MARKER = ".atlas-data"
MARKER_TEXT = (
    "Atlas made this data folder, so it keeps derived files (issues/index.db, issues/writes.db,\n"
    "issues/docs_vectors.db) here.\n"
    "Without this file Atlas only reads the folder and keeps them under ATLAS_HOME/data/.\n"
)
FOLDER = "data"
DOCS_VECTORS = (
    "docs_vectors.db"  # the docs sections' passage embeddings (tools/docsearch/semantic.py), beside issues/index.db
)
SYNC_STATE = ".sync"  # datasets/github/store.py keeps its staging database there


def owned(data_dir: Path) -> bool:
    """Whether Atlas made `data_dir` (and so may write derived files into it): the marker, or the
    staging folder of `atlas sync github` (a repository synced before the marker existed)."""
    return (Path(data_dir) / MARKER).is_file() or (Path(data_dir) / SYNC_STATE).is_dir()


def mark(data_dir: Path) -> None:
    """Record that Atlas made `data_dir` (called by whatever writes a data folder: the demo build, a sync)."""
    marker = Path(data_dir) / MARKER
    if not marker.is_file():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(MARKER_TEXT, encoding="utf-8")


def root(data_dir: Path, home: Path | None) -> Path:
    """The folder whose `issues/` holds `data_dir`'s derived files (`home` None: the temporary folder's
    `atlas-derived/` stands in for ATLAS_HOME/data/)."""
    folder = Path(data_dir)
    if owned(folder):
        return folder
    resolved = folder.resolve()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", resolved.name).strip("-.") or "data"
    key = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    base = Path(home) / FOLDER if home is not None else Path(tempfile.gettempdir()) / "atlas-derived"
    return base / f"{name}-{key}"
