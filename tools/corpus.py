"""A project's searchable material: its docs index and its tracker database, loaded once per folder.

`open_corpus` is called per tool call by workers, and twice per job; it returns the cached corpus
unless the folder's files changed (a stat of each source), in which case it rebuilds what is stale and keeps
the rest: after a webhook changed issues.jsonl the new corpus has a new issue database handle (already updated
in place: datasets/github/index.py), the same knowledge store, and docs carried over from the last corpus
(tools/corpus_docs.py). The docs index is built when a call first reads it, never for an issue search.
The check is plain `os` calls: through pathlib (glob, sorting paths, resolve) it cost a worker
0.15 ms per call, more than the stats themselves.

A process serving many repositories (issue 38) keeps at most `limit()` corpora open (ATLAS_OPEN_CORPORA,
set by the worker at start): opening one more forgets the least recently used, whose databases close once
no call in flight holds it (each store's one connection is kept by the store alone).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from datasets import knowledge_index
from datasets.knowledge_files import CODE, KNOWLEDGE
from datasets.tracker_db import SOURCE, ensure_db
from tools.corpus_docs import LazyDocs
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import DOC_SUFFIXES
from tools.issue_store import IssueStore
from tools.knowledge_store import KnowledgeStore


class Fingerprint(NamedTuple):
    """What a corpus was built from, per part: a part whose sources did not change is kept."""

    knowledge: str
    issues: tuple[int, int] | None  # (size, mtime) of issues.jsonl
    docs: tuple[tuple[str, int, int], ...]  # (name, size, mtime) of each doc page


@dataclass(frozen=True, eq=False)
class Corpus:
    """Docs and issues of one data folder (`docs/*.md`, `issues/issues.jsonl`)."""

    data_dir: Path
    docs_source: DocsIndex | LazyDocs  # read as `docs`
    issues: IssueStore
    home: Path | None = None  # where derived files live when Atlas did not make data_dir (datasets/derived.py)
    knowledge: KnowledgeStore | None = None  # PRs, releases, discussions, code; None when the folder has none

    @property
    def docs(self) -> DocsIndex:
        """The docs index, built now if this is its first reader (tools/corpus_docs.py)."""
        source = self.docs_source
        return source.get() if isinstance(source, LazyDocs) else source

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
        corpus = _opened(root, home, semantic, stamp, cached)
        _cache[key] = (stamp, corpus)
        _cache.move_to_end(key)
        _trim()
        return corpus


def _opened(
    root: Path, home: Path | None, semantic: bool, stamp: Fingerprint, last: tuple[Fingerprint, Corpus] | None
) -> Corpus:
    """The corpus for `stamp`, keeping the parts of `last` (this folder's previous corpus) whose sources are
    unchanged: the issue database handle, the knowledge store, the docs index (built or not)."""
    before, old = last if last is not None else (None, None)
    if old is not None and before is not None and before.issues == stamp.issues:
        issues = old.issues
    else:
        issues = IssueStore(ensure_db(root, home))
    if old is not None and before is not None and before.knowledge == stamp.knowledge:
        knowledge = old.knowledge
    elif os.path.isdir(os.path.join(root, KNOWLEDGE)) or os.path.isdir(os.path.join(root, CODE)):
        knowledge = KnowledgeStore(knowledge_index.ensure(root, home))
    else:
        knowledge = None
    docs = LazyDocs(root, home, semantic)  # issue threads bridge users' words to the docs
    if old is not None and before is not None and before.docs == stamp.docs and isinstance(old.docs_source, LazyDocs):
        docs = old.docs_source if before.issues == stamp.issues else LazyDocs(root, home, semantic, old.docs_source)
    return Corpus(root, docs, issues, home, knowledge)


def _fingerprint(root: str) -> Fingerprint:
    """(size, mtime) of the issues export, (name, size, mtime) of each `docs/*.md` and `*.rst` in name order, and the
    knowledge files' (a sync rewrites repo.json after the code: datasets/knowledge_index.py); a missing one left out."""
    try:
        st = os.stat(os.path.join(root, SOURCE))
        issues: tuple[int, int] | None = (st.st_size, st.st_mtime_ns)
    except OSError:
        issues = None
    try:
        with os.scandir(os.path.join(root, "docs")) as entries:
            pages = sorted((e for e in entries if e.name.endswith(DOC_SUFFIXES)), key=lambda e: e.name)
    except OSError:
        pages = []
    docs = []
    for entry in pages:
        try:
            st = entry.stat()  # follows a symlink, as Path.stat does
        except OSError:
            continue
        docs.append((entry.name, st.st_size, st.st_mtime_ns))
    return Fingerprint(knowledge_index.fingerprint(root), issues, tuple(docs))
