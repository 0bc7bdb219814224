"""The model backtest's answers, kept so that a rerun costs nothing and makes no model call.

Each model request of a replayed issue is keyed by a hash of the model's name and the whole request:
the instructions, the issue as data, the tools offered and every tool result the model read so far,
that is exactly the content it saw. The first request of an issue is the same on a rerun, so its
kept reply is read back; the tool calls in it run again over the masked tracker (as_of.py) and, when
they give the same results, the next request has the same key too, down to the answer. Anything the
model would see differently (an edited earlier issue, a new doc, other instructions, another model)
is another key: that step is asked anew. Replies are kept as files under the repository's derived
folder (datasets/derived.py), `issues/triage_model_answers/`, written to a temporary file and renamed.
A failed call (the API down or refusing) is not kept: a rerun asks again.

The cost limit (`--max-cost`) is enforced here too: once the calls made cost `max_cost` dollars, no
further call is made (a kept reply is still read back, being free) and `CostReached` is raised.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from atlas.errors import AtlasError
from atlas.settings import Price
from workers.agent.cost import dollars
from workers.agent.model import Model, ModelReply, ModelRequest
from workers.runs.state import Usage

FOLDER = "triage_model_answers"


class CostReached(AtlasError):
    """The replay's cost limit was reached before this call: it was not made."""


class CachedModel:
    """`Model` that reads a kept reply for a request it has seen, and keeps each new one."""

    def __init__(self, inner: Model, name: str, folder: Path, price: Price, max_cost: float) -> None:
        self.inner, self.name, self.folder, self.price, self.max_cost = inner, name, folder, price, max_cost
        self.spent = Usage()  # of the calls made (kept replies cost nothing)
        self.calls = 0
        self.kept = 0  # replies read back

    @property
    def cost(self) -> float:
        return dollars(self.spent, self.price)

    def key(self, request: ModelRequest) -> str:
        """The hash of the model's name and everything the request shows it."""
        seen = {
            "model": self.name,
            "instructions": request.instructions,
            "input": request.input,
            "tools": request.tools,
            "tool_choice": request.tool_choice,
            "max_output_tokens": request.max_output_tokens,
            "text": request.text,
        }
        return hashlib.sha256(json.dumps(seen, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def respond(self, request: ModelRequest) -> ModelReply:
        key = self.key(request)
        path = self.folder / key[:2] / f"{key}.json"
        kept = _read(path)
        if kept is not None:
            self.kept += 1
            return kept
        if self.cost >= self.max_cost:
            raise CostReached(f"the replay's cost limit (${self.max_cost:.2f}) is reached")
        reply = self.inner.respond(request)
        self.calls += 1
        self.spent.add(reply.usage)
        _write(path, reply)
        return reply


def _read(path: Path) -> ModelReply | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        usage = Usage(**data["usage"])
        return ModelReply.of(list(data["output"]), usage, str(data["status"]), data.get("incomplete_reason"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(path: Path, reply: ModelReply) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "output": reply.output,
        "status": reply.status,
        "incomplete_reason": reply.incomplete_reason,
        "usage": {
            "input_tokens": reply.usage.input_tokens,
            "cached_tokens": reply.usage.cached_tokens,
            "output_tokens": reply.usage.output_tokens,
        },
    }
    fd, tmp = tempfile.mkstemp(prefix=".answer-", suffix=".json", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(payload, out, ensure_ascii=False)
    os.replace(tmp, path)
