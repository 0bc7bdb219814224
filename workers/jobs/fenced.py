"""The worker's parts as one job may use them while it holds its run's lease: every save and every post
first calls the lease's check (`fence`), which raises LeaseLost once another job took the run.

Runs the agent loop answers are fenced in their reporter and keeper (workers/jobs/runs.py); triage and
filing runs write through the store and the chat platforms directly, so they get these parts instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

GUARDED_STORE = ("save", "pause")  # the run store's writes; its reads are not fenced


class Fencing:
    """`inner` with the named methods (all public callables when `names` is None) calling `fence` first."""

    def __init__(self, inner: Any, fence: Callable[[], None], names: tuple[str, ...] | None = None) -> None:
        self._inner, self._fence, self._names = inner, fence, names

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        guarded = name in self._names if self._names is not None else not name.startswith("_")
        if not guarded or not callable(attr):
            return attr

        def fenced(*args: Any, **kwargs: Any) -> Any:
            self._fence()
            return attr(*args, **kwargs)

        return fenced


class FencedParts:
    """A WorkerParts (workers/parts.py) whose store saves and chat platforms post only behind `fence`."""

    def __init__(self, parts: Any, fence: Callable[[], None]) -> None:
        self._parts, self._fence = parts, fence

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parts, name)

    @property
    def store(self) -> Any:
        return Fencing(self._parts.store, self._fence, GUARDED_STORE)

    def platform_for(self, kind: str) -> Any:
        platform = self._parts.platform_for(kind)
        return None if platform is None else Fencing(platform, self._fence)
