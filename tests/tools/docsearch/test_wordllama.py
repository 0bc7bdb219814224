"""WordLlama's static encoder, read from its package's files without importing the package (whose loader would
download the tokenizer it ships under another folder name): the package's own vectors, and no network."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from tools.docsearch.wordllama import StaticEncoder, package_dir

# The first four components of each vector, from the package's own inference
# (`WordLlamaInference(table, tokenizer).embed(texts, norm=True)`, wordllama 0.4.0.post1).
REFERENCE = {
    "how do I retry a failed job": [0.065057, 0.036953, 0.014334, -0.118388],
    "Retrying failed jobs and the weather is nice today in Paris": [0.03034, -0.069667, -0.000164, -0.066376],
}


@pytest.fixture(scope="module")
def folder():
    found = package_dir()
    if found is None:
        pytest.skip("wordllama is not installed (a candidate measured by bench/embedders.py, not a dependency)")
    return found


def test_vectors_are_the_packages_own(folder) -> None:
    model = StaticEncoder.load(folder)
    vectors = model.encode(list(REFERENCE))
    assert vectors.shape == (2, 256)
    assert np.allclose(vectors[:, :4], np.array(list(REFERENCE.values())), atol=1e-5)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not model.encode([""]).any()  # a text with no tokens is no direction at all


def test_loading_and_encoding_never_touch_the_network(folder, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the network was touched")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    model = StaticEncoder.load(folder)
    assert model.encode(["connect timeout"]).shape == (1, 256)
