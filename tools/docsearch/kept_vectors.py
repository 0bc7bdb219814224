"""The docs sections' passage vectors read back from the data folder's store (`docs_vectors.db`, written by
tools/docsearch/semantic.py), read-only and without the model: how a process that never embeds (the web
process's Coverage gaps page) ranks sections against a vector it was given.

The store keys a passage by its text, and passages are cut by the model's word-piece count, so this loads the
model's tokenizer (tokenizer.json: a few MB and a fraction of a second), never its weights. A section scores as
its best kept passage, as search does; a section none of whose passages are kept yet scores nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from tools.docsearch.minilm import Vectors, count_with, load_tokenizer, model_dir
from tools.docsearch.semantic import cut, passage_key, read_vectors


@dataclass(frozen=True)
class KeptSections:
    """The kept passage vectors of a fixed list of sections (rows in passage order; a missing one is zeros)."""

    vectors: Vectors
    starts: NDArray[np.intp]  # the row of each section's first passage
    kept: NDArray[np.bool_]  # per section: at least one of its passages has a kept vector

    def scores(self, vector: Vectors) -> Vectors:
        """Each section's cosine to the unit `vector`: its best kept passage's (-1 when none is kept)."""
        best: Vectors = np.maximum.reduceat(self.vectors @ vector, self.starts)
        best[~self.kept] = -1.0
        return best


@functools.lru_cache(maxsize=1)
def _tokenizer(folder: Path) -> object:
    return load_tokenizer(folder)


def read(sections: Sequence[tuple[str, str, str]], store: Path | None) -> KeptSections | None:
    """The kept vectors of `sections` ((page title, heading path, text) each, as DocsIndex builds them); None when
    the store is absent or unreadable, the model's package (its tokenizer) is not installed, or nothing is kept."""
    folder = model_dir()
    if store is None or folder is None or not store.is_file() or not sections:
        return None
    tokenizer = _tokenizer(folder)
    texts, starts = cut(sections, lambda batch: count_with(tokenizer, batch))
    keys = [passage_key(t) for t in texts]
    found = read_vectors(store, list(dict.fromkeys(keys)), read_only=True)
    if not found:
        return None
    dim = len(next(iter(found.values())))
    vectors = np.zeros((len(keys), dim), np.float32)
    held = np.zeros(len(keys), bool)
    for row, key in enumerate(keys):
        if key in found:
            vectors[row], held[row] = found[key], True
    return KeptSections(vectors, starts, np.logical_or.reduceat(held, starts))
