"""Texts side by side in one pass of the encoder (tools/docsearch/minilm.py `encode_packed`, a new issue's triage) give
the vectors each gets alone: no text attends to another, and each counts its positions from 0."""

from __future__ import annotations

import numpy as np
import pytest

from tools.docsearch.minilm import Encoder, model_dir
from workers.triage import meaning

FOLDER = model_dir()
pytestmark = pytest.mark.skipif(
    FOLDER is None,
    reason="the embedding model's package is not installed (make setup installs it: requirements/semantic.txt)",
)

TITLE = "Scheduler crashes on startup with KeyError 'retry_policy'"
BODY = (
    "After the upgrade to 2.3 the scheduler will not start.\n\n```\nTraceback "
    "(most recent call last):\nKeyError: 'retry_policy'\n```\n"
)


def test_packed_texts_get_the_vectors_they_get_alone() -> None:
    assert FOLDER is not None
    encoder = Encoder.load(FOLDER)
    texts = [TITLE, meaning.opening(TITLE, BODY), "ORB-1202 lease_seconds"]
    alone = encoder.encode(texts)
    packed = encoder.encode_packed(texts)
    assert packed.shape == alone.shape and packed.dtype == np.float32
    assert np.abs(packed - alone).max() < 1e-6
    reversed_ = encoder.encode_packed(texts[::-1])[::-1]  # a neighbour's place in the row changes nothing
    assert np.abs(reversed_ - alone).max() < 1e-6
