"""Stopping `atlas serve` without dropping the requests in flight.

On SIGTERM (a deploy, `docker stop`, systemd) the listening sockets close at once, so nothing new is
accepted and a load balancer sends the next request to another process; the requests already read go on
in waitress's threads and their answers are flushed by the same loop, for up to DRAIN_SECONDS; then the
process exits. A Slack event, a Discord interaction or a GitHub delivery that was being answered is
answered, instead of being cut off and (for GitHub, which does not redeliver) lost. Ctrl-C stops at once.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import MutableMapping
from typing import Any

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, MultiSocketServer

log = logging.getLogger("atlas.serve")
# A Slack, Discord or GitHub request is acked within 3 s (their deadlines) or has missed it; 6 s is within the 10 s
# `docker stop` gives before SIGKILL (Kubernetes gives 30 s)
DRAIN_SECONDS = 6.0
TICK_SECONDS = 0.05


class _Stopping(BaseException):
    """SIGTERM arrived: drain, then exit. A BaseException, as KeyboardInterrupt is, so that waitress's
    dispatchers (which log and swallow an Exception raised in them) let it through to `run`."""


def run(server: BaseWSGIServer | MultiSocketServer, drain_seconds: float = DRAIN_SECONDS) -> None:
    """Serve until SIGTERM (drained) or Ctrl-C (at once); the server is closed either way."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stopping)
    stopping = False
    try:
        server.run()
    except _Stopping:
        stopping = True
        drain(server, drain_seconds)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    if stopping:  # drained: what is left is work after an ack (a status, a stream), which SIGTERM always cut short;
        logging.shutdown()  # an executor thread stuck on it (a Slack outage's retries) must not hold the exit
        os._exit(0)


def _stopping(signum: int, frame: Any) -> None:
    # a deadline of its own: should _Stopping land where something swallows it, the process still ends
    watchdog = threading.Timer(DRAIN_SECONDS + 1.0, os._exit, (0,))
    watchdog.daemon = True
    watchdog.start()
    raise _Stopping


def drain(server: BaseWSGIServer | MultiSocketServer, seconds: float) -> None:
    """Close the listening sockets, then run the loop until no request is in flight (or `seconds` pass)."""
    channels = _map(server)
    for listener in [d for d in list(channels.values()) if isinstance(d, BaseWSGIServer)]:
        listener.accepting = False
        wasyncore.dispatcher.close(listener)  # its socket only: the trigger stays, the threads wake the loop with it
    deadline = time.monotonic() + seconds
    busy = _in_flight(server, channels)
    if busy:
        log.warning("stopping: finishing %d request(s) in flight (at most %.0fs)", busy, seconds)
    while busy and time.monotonic() < deadline:
        wasyncore.loop(timeout=TICK_SECONDS, map=channels, count=1, use_poll=server.adj.asyncore_use_poll)
        busy = _in_flight(server, channels)
    if busy:
        log.warning("stopping: %d request(s) still in flight after %.0fs; closing them", busy, seconds)


def _map(server: BaseWSGIServer | MultiSocketServer) -> MutableMapping[int, Any]:
    found: MutableMapping[int, Any] = server.map if isinstance(server, MultiSocketServer) else server._map
    return found


def _in_flight(server: BaseWSGIServer | MultiSocketServer, channels: MutableMapping[int, Any]) -> int:
    """Connections with a request being answered or an answer not yet sent, plus tasks not yet started."""
    open_ = [c for c in list(channels.values()) if isinstance(c, HTTPChannel) and (c.requests or c.total_outbufs_len)]
    return len(open_) + len(server.task_dispatcher.queue)
