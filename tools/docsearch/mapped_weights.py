"""A safetensors file's tensors as read-only numpy memory maps of the file itself (issue 40).

safetensors' own numpy loader copies every tensor into the process's heap: each worker held its own 90 MB of
the embedding model. Mapped read-only, the pages are the file's, in the page cache once for every process on
the machine that maps it (PSS counts a shared page 1/n to each of n processes), none are read before a forward
pass needs them, and an array cannot be written by mistake. The format is a little-endian u64 header length,
that many bytes of JSON header (name -> dtype, shape, data_offsets relative to the end of the header), then
the data; only the dtypes below are mapped, in the file's own byte order and type (no conversion, no copy).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

DTYPES = {"F32": "<f4", "F64": "<f8", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1"}
MAX_HEADER = 100_000_000  # the format's own limit on the header's length


def map_tensors(path: Path) -> dict[str, NDArray[np.generic]]:
    """Every tensor in the safetensors file at `path`, each a read-only `np.memmap` view of its bytes.
    Raises ValueError when the file is not a safetensors file this can map."""
    with path.open("rb") as f:
        prefix = f.read(8)
        if len(prefix) != 8:
            raise ValueError(f"{path}: too short for a safetensors header")
        (length,) = struct.unpack("<Q", prefix)
        if length > MAX_HEADER:
            raise ValueError(f"{path}: header of {length} bytes")
        header = json.loads(f.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    tensors: dict[str, NDArray[np.generic]] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        if meta["dtype"] not in DTYPES:
            raise ValueError(f"{path}: {name} is {meta['dtype']}, which is not mapped")
        begin, end = meta["data_offsets"]
        dtype = np.dtype(DTYPES[meta["dtype"]])
        shape = tuple(int(n) for n in meta["shape"])
        if not 0 <= begin <= end <= len(data) or end - begin != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"{path}: {name}'s offsets do not fit its shape or the file")
        tensors[name] = data[begin:end].view(dtype).reshape(shape)
    return tensors
