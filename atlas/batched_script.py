"""One Lua script called from many threads at once, the calls sharing Redis round trips.

Why: the Slack ack is one script call per mention. Under a burst (50 mentions at once on one
process), each round trip costs the web process more in system calls and thread wake-ups than the
script costs Redis. Calls that arrive while a round trip is in flight go together in the next one,
a pipeline of EVALSHAs (a group commit): each script still runs atomically on its own, and each
caller gets its own reply. A lone call goes at once, as a plain call would: nothing waits for
company.

One caller at a time sends (the leader); the others wait for their reply. When its round trip is
done, the leader hands the turn to the first caller still waiting, which sends everything queued
by then. A failed round trip fails every call in it with the same RedisError, as each would have
failed alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import redis
from redis.exceptions import NoScriptError
from redis.typing import EncodableT, KeyT

MAX_BATCH = 32  # calls in one round trip at most: bounds how long one pipeline holds Redis


class _Call:
    """One caller's keys and arguments, and, once its round trip is done, its reply or error."""

    __slots__ = ("keys", "args", "reply", "error", "lead", "done", "_latch")

    def __init__(self, keys: Sequence[KeyT], args: Sequence[EncodableT]) -> None:
        self.keys = keys
        self.args = args
        self.reply: Any = None
        self.error: BaseException | None = None
        self.lead = False  # handed the turn to send: it was first in line when the last round trip ended
        self.done = False
        self._latch = threading.Lock()
        self._latch.acquire()  # released once: when done, or when handed the turn

    def wake(self) -> None:
        self._latch.release()

    def sleep(self, timeout: float) -> bool:
        return self._latch.acquire(timeout=timeout)


class BatchedScript:
    """`script(keys, args)`: the reply of one EVALSHA of `source`, from a round trip it may share.

    `wait_seconds`: how long a caller waits for its turn and its reply before it gives up with
    redis.TimeoutError (a round trip is itself bounded by the connection's socket timeout).
    """

    def __init__(self, conn: redis.Redis, source: str, *, wait_seconds: float, max_batch: int = MAX_BATCH) -> None:
        self.conn = conn
        self.script = conn.register_script(source)
        self.wait_seconds = wait_seconds
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._queued: list[_Call] = []
        self._sending = False  # a leader is sending; new calls queue behind it

    def __call__(self, keys: Sequence[KeyT], args: Sequence[EncodableT]) -> Any:
        call = _Call(keys, args)
        with self._lock:
            self._queued.append(call)
            lead = call.lead = not self._sending
            self._sending = True
        if not lead:
            self._wait(call)
        if not call.done:  # its turn: send what is queued, itself first
            self._lead()
        if call.error is not None:
            raise call.error
        return call.reply

    def _wait(self, call: _Call) -> None:
        """Sleep until `call` is done or handed the turn; give up (redis.TimeoutError) if it never left the queue."""
        while not call.sleep(self.wait_seconds):
            with self._lock:
                if call.lead or call.done:
                    continue  # woken just now: the latch is released or about to be
                if call in self._queued:  # still unsent: withdraw it, so nothing is written for it
                    self._queued.remove(call)
                    raise redis.TimeoutError(f"no Redis round trip for this call within {self.wait_seconds:g} s")
            # in a round trip in flight: its reply comes within the connection's socket timeout

    def _lead(self) -> None:
        """Send one round trip of queued calls, then hand the turn to the next caller in line."""
        with self._lock:
            batch, self._queued = self._queued[: self.max_batch], self._queued[self.max_batch :]
        try:
            self._send(batch)
        except BaseException as exc:  # every call in the round trip fails as it would alone
            for call in batch:
                call.error = exc
        finally:
            with self._lock:
                following = self._queued[0] if self._queued else None
                if following is not None:
                    following.lead = True
                else:
                    self._sending = False
            for call in batch:
                call.done = True
                if not call.lead:  # the leader itself is awake
                    call.wake()
            if following is not None:
                following.wake()

    def _send(self, batch: list[_Call]) -> None:
        if len(batch) == 1:  # alone: a plain EVALSHA (redis-py loads the script if the server lacks it)
            batch[0].reply = self.script(keys=batch[0].keys, args=batch[0].args)
            return
        replies = self._pipeline(batch)
        if any(isinstance(r, NoScriptError) for r in replies):  # a restarted or flushed server: load once, resend those
            self.script.sha = self.conn.script_load(self.script.script)
            again = [i for i, r in enumerate(replies) if isinstance(r, NoScriptError)]
            for i, reply in zip(again, self._pipeline([batch[i] for i in again]), strict=True):
                replies[i] = reply
        for call, reply in zip(batch, replies, strict=True):
            if isinstance(reply, Exception):
                call.error = reply
            else:
                call.reply = reply

    def _pipeline(self, batch: list[_Call]) -> list[Any]:
        pipe = self.conn.pipeline(transaction=False)
        for call in batch:
            pipe.evalsha(self.script.sha, len(call.keys), *call.keys, *call.args)
        return pipe.execute(raise_on_error=False)
