"""A gap question's meaning, kept for the Coverage gaps page (issue 30): its sentence embedding beside the run's
index entry, so the page groups paraphrases ("rotate the TLS certificate", "renew the SSL cert") that share no word.

A worker embeds the question with the docs encoder it already has (tools/docsearch/semantic.py `encoder`,
passed in as an `Embedder`; nothing is kept when the model's package is absent) when a run that is a gap
(`run_index.gap_of`) is saved finished: one small string per gap run, 384 float16 values (768 bytes), expiring
when the run's index entry is trimmed (`run_index.KEEP_SECONDS` after it was asked). A vote down arrives in
the web process, which has no model: the vote's script (`run_index.vote_changed`) puts the run in a short
"wanted" set when it has no vector yet, and the next finished run a worker saves that opens a filing window
(finds the console's pending list empty: workers/console_data/index_filing.py; once a filing delay under load,
and right after a vote, which files what is pending) embeds a few of them (`WANTED_PER_SAVE`); until then that
run is grouped by its words. A command fewer for every other run (issue 40). Nothing here imports numpy before it
is used: the web process imports this module (through the run store) on every start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import redis

from atlas.connection import text
from workers.console_data import run_index
from workers.console_data.run_index import vector_key, wanted_key

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DIMS = 384  # all-MiniLM-L6-v2 (tools/docsearch/minilm.py)
WANTED_PER_SAVE = 4  # voted-down runs embedded with each finished run a worker saves (about 15 ms each)


class Embedder(Protocol):
    """What keeping a vector needs of the docs encoder (tools/docsearch/minilm.py `Encoder`)."""

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


def seconds_left(created_at: float, now: float) -> int:
    """How long a run's vector is kept: until its index entry is trimmed (0: already past)."""
    return max(0, int(created_at + run_index.KEEP_SECONDS - now))


def pack(vector: Any) -> bytes:
    """A unit vector as float16 bytes: 768 bytes for 384 values; cosines move by well under 0.01."""
    import numpy as np

    return np.asarray(vector, np.float16).tobytes()


def due(conn: redis.Redis, run_id: str, gap: bool, wanted: bool = True) -> tuple[bool, list[str]]:
    """Whether the run, a gap (`gap`), still lacks its vector, and (`wanted`) up to WANTED_PER_SAVE voted-down runs
    to embed with it (taken off the wanted set): one round trip at most, none for a run that is no gap and takes
    no wanted runs."""
    if not gap and not wanted:
        return False, []
    pipe = conn.pipeline(transaction=False)
    if gap:
        pipe.exists(vector_key(run_id))
    if wanted:
        pipe.zpopmax(wanted_key(), WANTED_PER_SAVE)
    replies = pipe.execute()
    taken = replies.pop() if wanted else []
    return gap and not replies[0], [text(member) for member, _score in taken]


def keep(conn: redis.Redis, questions: dict[str, tuple[str, float]], model: Embedder, now: float) -> int:
    """Embed each run's question (run id -> (question, created_at)) and keep it while the run's index entry lives;
    how many were kept."""
    live = {
        run_id: (question, seconds_left(created_at, now))
        for run_id, (question, created_at) in questions.items()
        if question.strip() and seconds_left(created_at, now)
    }
    if not live:
        return 0
    vectors = model.encode([question for question, _ in live.values()])
    pipe = conn.pipeline(transaction=False)
    for (run_id, (_, ttl)), vector in zip(live.items(), vectors, strict=True):
        pipe.set(vector_key(run_id), pack(vector), ex=ttl)
    pipe.execute()
    return len(live)


def read(conn: redis.Redis, run_ids: Sequence[str]) -> dict[str, NDArray[np.float32]]:
    """The kept vectors of these runs (one MGET), as float32 unit vectors; runs without one are left out."""
    import numpy as np

    if not run_ids:
        return {}
    found: dict[str, NDArray[np.float32]] = {}
    for run_id, blob in zip(run_ids, conn.mget([vector_key(i) for i in run_ids]), strict=True):
        if isinstance(blob, bytes) and len(blob) == DIMS * 2:
            vector = np.frombuffer(blob, np.float16).astype(np.float32)
            norm = float(np.linalg.norm(vector))
            if norm > 0:
                found[run_id] = vector / norm
    return found
