"""A project's searchable material: its docs index and its tracker database, loaded once per folder.

`open_corpus` is called per tool call by workers, and twice per job; it returns the cached corpus
unless the folder's files changed (a stat of each source), in which case it rebuilds what is stale.
The check is plain `os` calls: through pathlib (glob, sorting paths, resolve) it cost a worker
0.15 ms per call, more than the stats themselves.

A process serving many repositories (issue 38) keeps at most `limit()` corpora open (ATLAS_OPEN_CORPORA,
set by the worker at start): opening one more forgets the least recently used, whose databases close once
no call in flight holds it (their connections are per thread, kept by the store alone).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from datasets import derived, knowledge_index
from datasets.knowledge_files import CODE, KNOWLEDGE
from datasets.tracker_db import SOURCE, ensure_db
from tools.docsearch.bridge import thread_texts
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import DOC_SUFFIXES, load_pages
from tools.issue_store import IssueStore
from tools.knowledge_store import KnowledgeStore

Fingerprint = tuple[tuple[str, int, int], ...]


@dataclass(frozen=True)
class Corpus:
    """Docs and issues of one data folder (`docs/*.md`, `issues/issues.jsonl`)."""

    data_dir: Path
    docs: DocsIndex
    issues: IssueStore
    home: Path | None = None  # where derived files live when Atlas did not make data_dir (datasets/derived.py)
    knowledge: KnowledgeStore | None = None  # PRs, releases, discussions, code; None when the folder has none

    def snapshot(self) -> contextlib.AbstractContextManager[None]:
        """One tool call's reads of the knowledge index in one commit (tools/readonly_db.py), whatever an update
        commits meanwhile. The issues' index.db is left out: it is not WAL (datasets/tracker_db.py), so a read
        transaction held for a call would make the journal's in-place writes wait for it."""
        return self.knowledge.snapshot() if self.knowledge is not None else contextlib.nullcontext()


DEFAULT_LIMIT = 8  # atlas/org_settings.py DEFAULT_OPEN_CORPORA
_cache: OrderedDict[tuple[Path, Path | None, bool], tuple[Fingerprint, Corpus]] = OrderedDict()
_lock = threading.Lock()
_limit = [DEFAULT_LIMIT]


def set_limit(count: int) -> None:
    """Keep at most `count` corpora open in this process (the worker's ATLAS_OPEN_CORPORA)."""
    with _lock:
        _limit[0] = max(1, count)
        _trim()


def limit() -> int:
    return _limit[0]


def open_count() -> int:
    """How many corpora this process holds open now (the scale bench's memory bound)."""
    with _lock:
        return len(_cache)


def _trim() -> None:
    while len(_cache) > _limit[0]:
        _cache.popitem(last=False)  # the least recently used


def open_corpus(data_dir: Path, home: Path | None = None, semantic: bool = False) -> Corpus:
    """The corpus of `data_dir`, built on first use and rebuilt when its sources change; its issues'
    database and its docs' vectors live where `datasets.derived` says (under `home` for a folder Atlas
    did not make). `semantic` (ATLAS_SEMANTIC): docs search ranks by meaning too (tools/docsearch/semantic.py)."""
    root = Path(os.path.realpath(data_dir))  # what Path.resolve() gives, for a fraction of its cost
    with _lock:
        stamp = _fingerprint(str(root))
        key = (root, home, semantic)
        cached = _cache.get(key)
        if cached is not None and cached[0] == stamp:
            _cache.move_to_end(key)
            return cached[1]
        vectors = derived.root(root, home) / "issues" / derived.DOCS_VECTORS
        # issue threads bridge users' words to the docs
        docs = DocsIndex(load_pages(root / "docs"), thread_texts(root / SOURCE), semantic, vectors)
        knowledge = None
        if os.path.isdir(os.path.join(root, KNOWLEDGE)) or os.path.isdir(os.path.join(root, CODE)):
            knowledge = KnowledgeStore(knowledge_index.ensure(root, home))
        corpus = Corpus(root, docs, IssueStore(ensure_db(root, home)), home, knowledge)
        _cache[key] = (stamp, corpus)
        _cache.move_to_end(key)
        _trim()
        return corpus


def _fingerprint(root: str) -> Fingerprint:
    """(name, size, mtime) of the issues export, of each `docs/*.md` and `*.rst` in name order, and of the knowledge
    files (a sync rewrites repo.json after the code: datasets/knowledge_index.py); a missing one is left out."""
    out = [("knowledge", 0, hash(knowledge_index.fingerprint(root)))]
    try:
        st = os.stat(os.path.join(root, SOURCE))
        out.append((os.path.basename(SOURCE), st.st_size, st.st_mtime_ns))
    except OSError:
        pass
    try:
        with os.scandir(os.path.join(root, "docs")) as entries:
            docs = sorted((e for e in entries if e.name.endswith(DOC_SUFFIXES)), key=lambda e: e.name)
    except OSError:
        docs = []
    for entry in docs:
        try:
            st = entry.stat()  # follows a symlink, as Path.stat does
        except OSError:
            continue
        out.append((entry.name, st.st_size, st.st_mtime_ns))
    return tuple(out)
