"""An issue store read from several threads at once (a search over every repository reads each in a lane, the
worker's thread reads some too) holds one connection, and every thread gets what a lone reader gets."""

from __future__ import annotations

import threading
from pathlib import Path

from datasets.tracker_db import ensure_db
from tests.support.tools_dataset import make_dataset
from tools.issue_store import IssueStore

QUERIES = ("cron twice", "lease expired", "redis failover", "retries exhausted", "permanent error")


def _reads(store: IssueStore) -> list[object]:
    found: list[object] = [[(i.id, i.title) for i in store.search(q, None, 5)] for q in QUERIES]
    return [*found, store.get(3), store.comments(3), store.labels([1, 3, 6]), store.id_range()]


def test_threads_reading_one_store_share_its_connection_and_read_what_one_reader_reads(tmp_path: Path) -> None:
    store = IssueStore(ensure_db(make_dataset(tmp_path)))
    expected = _reads(IssueStore(store.path))
    got: list[list[object]] = []
    connections: set[int] = set()
    failures: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(30):
                got.append(_reads(store))
            connections.add(id(store.connection()))
        except BaseException as exc:  # a shared cursor misused shows up here ("recursive use of cursors")
            failures.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(got) == 120 and all(reads == expected for reads in got)
    assert len(connections) == 1  # one page cache for the store, not one per thread
