"""Issue titles as sentence vectors (the docs' embedding model, tools/docsearch/minilm.py), when it is installed.

A title is written when the issue is opened, so its vector leaks nothing of the future; the history's
vectors are computed once and kept in the data's derived folder (`issues/triage_titles.npz`, keyed by
each title's hash), so a restart or a backtest re-encodes nothing. Without the model's package the
triage is lexical only (similarity.py) and says so in its figures.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tools.docsearch.semantic import encoder

STORE = "triage_titles.npz"
OPENINGS = "triage_openings.npz"  # the same for each issue's opening (opening() below)
OPENING_WORDS = 60  # the first words of prose: what the reporter saw, before logs and environment tables
NOT_PROSE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
log = logging.getLogger(__name__)
Vectors = npt.NDArray[np.float32]


def available() -> bool:
    """Whether the embedding model can be loaded here."""
    return encoder() is not None


def encode(texts: Sequence[str]) -> Vectors | None:
    """Unit vectors, one row per text; None without the model."""
    model = encoder()
    if model is None:
        return None
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.asarray(model.encode(list(texts)), dtype=np.float32)


def title_and_opening(title: str, body: str) -> tuple[Vectors, Vectors] | None:
    """A new issue's title and opening vectors, in one pass of the model (`Encoder.encode_packed`); None without it."""
    model = encoder()
    if model is None:
        return None
    both = model.encode_packed([title, opening(title, body)])
    return both[0], both[1]


def opening(title: str, body: str) -> str:
    """The title and the body's first prose words (code blocks, tables, headings, lists and quotes out):
    two reports of one problem describe it in their own words there, while their logs differ."""
    prose = (line.strip() for line in NOT_PROSE.sub(" ", body).splitlines())
    words = " ".join(line for line in prose if line and not line.startswith(("|", "#", "-", ">", "*"))).split()
    return f"{title}. {' '.join(words[:OPENING_WORDS])}" if words else title


def title_vectors(titles: Sequence[str], store: Path | None) -> Vectors | None:
    """The vectors of `titles` (any texts, in order), read from `store` where it has them, the rest encoded and
    saved."""
    if encoder() is None:
        return None
    keys = [hashlib.sha256(t.encode()).hexdigest()[:24] for t in titles]
    known: dict[str, Vectors] = {}
    if store is not None and store.is_file():
        try:
            with np.load(store) as saved:
                known = {k: saved[k] for k in saved.files}
        except (OSError, ValueError):
            known = {}
    todo = sorted({k: t for k, t in zip(keys, titles, strict=True) if k not in known}.items())
    if todo:
        fresh = encode([t for _, t in todo])
        assert fresh is not None
        known.update({k: fresh[i] for i, (k, _) in enumerate(todo)})
        if store is not None:
            _save(store, known)
    if not keys:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([known[k] for k in keys]).astype(np.float32)


def _save(store: Path, vectors: dict[str, Vectors]) -> None:
    """Write beside, then rename: a reader never sees half a file; a read-only place is only logged."""
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".triage-", suffix=".npz", dir=store.parent)
        with os.fdopen(fd, "wb") as out:
            np.savez(out, **vectors)  # type: ignore[arg-type]  # numpy's stub types **kwds as the allow_pickle flag
        os.replace(tmp, store)
    except OSError as exc:
        log.warning("triage title vectors not saved at %s: %s", store, exc)
