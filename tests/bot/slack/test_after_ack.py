"""After-ack work waits for the requests in flight to be answered, and never longer than its patience."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bot.after_ack import AfterAck, InFlight


def test_work_starts_once_the_requests_in_flight_are_answered() -> None:
    in_flight, started = InFlight(), threading.Event()
    pool = AfterAck(ThreadPoolExecutor(2), in_flight, patience=30)
    try:
        with in_flight.request():
            with in_flight.request():
                done = pool.submit(started.set)
                assert not started.wait(0.2)  # two requests in flight
            assert not started.wait(0.2)  # still one
        done.result(timeout=5)  # none: it runs, long before its patience is over
    finally:
        pool.shutdown()


def test_work_waits_no_longer_than_its_patience_counted_from_submission() -> None:
    in_flight = InFlight()
    pool = AfterAck(ThreadPoolExecutor(1), in_flight, patience=0.3)
    try:
        with in_flight.request():  # a request that never ends while the work waits
            submitted = time.monotonic()
            first, second = pool.submit(time.monotonic), pool.submit(time.monotonic)
            ran = first.result(timeout=5), second.result(timeout=5)
        assert all(0.25 <= at - submitted < 2 for at in ran)
        assert ran[1] - ran[0] < 0.2  # the second waited alongside the first, not after it
    finally:
        pool.shutdown()
