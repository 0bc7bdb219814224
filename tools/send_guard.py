"""The last word before an approved write leaves: the approval gate's ledger marks the call *sent* here.

A claim taken before the write turn (tools/github/pacing.py) that never reached this point provably sent
nothing, so a later attempt may resume it instead of calling it in doubt. The gate sets the guard around an
approved call (workers/approvals/gate.py); a tracker whose writes call `before_send` inside their turn says so
with `guards_sends = True`. A guard that answers False means another attempt owns the call now: nothing is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from tools.errors import TrackerError

_GUARD: ContextVar[Callable[[], bool] | None] = ContextVar("atlas_send_guard", default=None)


class TakenOver(TrackerError):
    """Another attempt of this approved call owns it now; this one sent nothing."""


@contextmanager
def guarding(guard: Callable[[], bool]) -> Iterator[None]:
    """Within the block, every guarded write asks `guard` (True: this attempt may send) just before sending."""
    token = _GUARD.set(guard)
    try:
        yield
    finally:
        _GUARD.reset(token)


def before_send() -> None:
    """Called by a tracker in its write turn, right before the request goes out."""
    guard = _GUARD.get()
    if guard is not None and not guard():
        raise TakenOver("another attempt of this approved call took it over, so this one sent nothing")
