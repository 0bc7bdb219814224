"""The stop signals (SIGTERM, SIGINT) reach a worker's main thread, and no other.

CPython runs a Python signal handler only in the main thread, and the kernel hands a signal sent to the
process to any one thread that does not block it. One that lands on another thread (RQ's pubsub listener,
a heartbeat, a run's thread, a pool's) only marks the handler due: the main thread, blocked in RQ's dequeue
(BLMOVE, tens of seconds), is not interrupted, so a warm stop would start when the read returns, past a
platform's grace period. So the worker holds them in its main thread while it starts (every thread started
then inherits the mask), releases them there once RQ's handlers are in, and each thread started later
holds them from its start: the kernel then has only the main thread to deliver them to, and its blocking
read ends with EINTR at once. A child process inherits the mask too: it releases them for itself.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT})  # the two RQ's worker and scheduler handle


def hold() -> None:
    """Block the stop signals in the calling thread: a thread's first line, or a pool's `initializer`."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def release() -> None:
    """Unblock them in the calling thread: the main thread once its handlers are in, or a child process.
    A signal that came meanwhile is handled here, raising what its handler raises."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


@contextmanager
def held() -> Iterator[None]:
    """The stop signals blocked in the calling thread for the block, its own mask restored after: a thread
    started inside begins with them blocked (pthread_create copies the starting thread's mask)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def released() -> Iterator[None]:
    """The stop signals unblocked in the calling thread for the block: for starting a process of its own
    (a server), which would otherwise inherit the mask through fork and exec and never take a SIGTERM."""
    before = signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


__all__ = ["STOP_SIGNALS", "held", "hold", "release", "released"]
