"""The threads' identifiers remembered between refreshes give the bridge a full read gives, and forget old threads."""

from __future__ import annotations

from tools.docsearch.bridge import ThreadNames, asked_texts

SECTIONS = ["Set `lease_seconds` for long jobs", "Every `heartbeat_seconds` the lease renews", "Plain words only"]
THREADS = ["Lease lost\nI raised lease_seconds to 120", "Slow heartbeat\nheartbeat_seconds = 5 is ignored", "Hello"]


def test_remembered_names_give_the_same_bridge_and_only_the_current_threads_stay() -> None:
    names = ThreadNames()
    assert asked_texts(SECTIONS, THREADS, names) == asked_texts(SECTIONS, THREADS) == [THREADS[0], THREADS[1], ""]
    names.keep()
    edited = [THREADS[0], "Slow heartbeat\nnothing named any more", THREADS[2]]
    assert asked_texts(SECTIONS, edited, names) == asked_texts(SECTIONS, edited) == [THREADS[0], "", ""]
    names.keep()
    assert len(names) == 3  # the edited thread's old text is forgotten
