"""A corpus's docs index, built when a call first reads it, and carried over when only the issues changed.

An issue search never reads the docs, so a corpus opened for one (after a webhook, or by a search over every
repository) costs its issue database alone. The docs index holds the issue threads' words for the sections whose
rare identifiers they name (tools/docsearch/bridge.py), so a changed issues.jsonl changes it too; but when the docs
themselves did not change, the new corpus starts from the last one's index: `DocsIndex.rebridged` keeps it
whole when no section's bridged words changed (one edited issue rarely names a doc's identifier), and the
threads' identifiers are remembered (`ThreadNames`), so only the changed thread's words are read again.
"""

from __future__ import annotations

import threading
from pathlib import Path

from datasets import derived
from datasets.tracker_db import SOURCE
from tools.docsearch.bridge import ThreadNames, thread_texts
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import load_pages


class LazyDocs:
    """The docs index of one data folder, built on first `get` (once, whichever thread asks first)."""

    def __init__(self, root: Path, home: Path | None, semantic: bool, after: LazyDocs | None = None) -> None:
        """`after`: the previous corpus's docs of the same folder, whose pages are unchanged (its issues changed)."""
        self.root, self.home, self.semantic = root, home, semantic
        self._lock = threading.Lock()
        self._index: DocsIndex | None = None
        # the index to start from: never a chain of unbuilt ones
        self._base: DocsIndex | None = None if after is None else after.built() or after._base
        self.names: ThreadNames = ThreadNames() if after is None else after.names

    def built(self) -> DocsIndex | None:
        """The index when it was built, else None (nothing is built for asking)."""
        return self._index

    def get(self) -> DocsIndex:
        index = self._index
        if index is not None:
            return index
        with self._lock:
            if self._index is None:
                threads = thread_texts(self.root / SOURCE)
                base, self._base = self._base, None
                if base is not None:
                    self._index = base.rebridged(threads, self.names)
                else:
                    vectors = derived.root(self.root, self.home) / "issues" / derived.DOCS_VECTORS
                    pages = load_pages(self.root / "docs")
                    self._index = DocsIndex(pages, threads, self.semantic, vectors, self.names)
                self.names.keep()
            return self._index
