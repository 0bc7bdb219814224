"""A static sentence encoder in numpy: WordLlama's l2_supercat (256-d), read from the package that ships it.

The package `wordllama` (MIT) carries its token embeddings (`weights/l2_supercat_256.safetensors`, 16 MB)
and tokenizer (`tokenizers/l2_supercat_tokenizer_config.json`) inside its wheel. Its own loader looks for
the tokenizer under `wordllama/tokenizer/`, misses the shipped `tokenizers/` folder and so would download
it; it also imports requests and sets up logging on import. So the package is never imported here: its two
files are found by path and read directly, which cannot touch the network. A text's vector is the mean of
its tokens' embeddings (no special tokens, no truncation), L2-normalised: the package's own `embed(norm=True)`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

MODEL_NAME = "wordllama-l2-supercat-256"
WEIGHTS = Path("weights") / "l2_supercat_256.safetensors"
TOKENIZER = Path("tokenizers") / "l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"

Vectors = NDArray[np.float32]


def package_dir() -> Path | None:
    """The installed package's folder when it holds both files, else None; found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder if (folder / WEIGHTS).is_file() and (folder / TOKENIZER).is_file() else None


@dataclass(frozen=True)
class StaticEncoder:
    """The token embedding table (memory-mapped) and its tokenizer."""

    table: Vectors
    tokenizer: object  # tokenizers.Tokenizer (typed loosely: the library's stubs are partial)

    @classmethod
    def load(cls, folder: Path) -> StaticEncoder:
        """Read the table and tokenizer from the package folder (local files only)."""
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        return cls(load_file(str(folder / WEIGHTS))[TENSOR].astype(np.float32, copy=False), tokenizer)

    def encode(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised vector per text (rows in the order given); a text with no tokens is all zeros."""
        encoded = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)  # type: ignore[attr-defined]
        out = np.zeros((len(texts), self.table.shape[1]), np.float32)
        last = self.table.shape[0] - 1
        for row, enc in enumerate(encoded):
            if enc.ids:
                out[row] = self.table[np.clip(np.asarray(enc.ids, np.int64), 0, last)].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: Vectors = (out / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit
