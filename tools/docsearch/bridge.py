"""Users' words for doc sections, learned from the project's own issue threads (doc2query from real data).

People ask in their words ("stop a running job"); docs answer in theirs (`send_stop_job_command`).
An issue thread is written in the first and often names the second: a function, a class, a setting
that the docs explain. So a section that holds a rare identifier also gets, as a low-weighted search
field, the words of the issue titles and bodies that name that identifier. Only identifiers (snake
case, dotted names, CamelCase) held by at most `MAX_OWNERS` sections count: a word every page uses
would spread one issue's words everywhere.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from tools.fts_query import TERM

MAX_OWNERS = 3
IDENTIFIER = re.compile(r"^(?=.*[a-z])(?:[A-Za-z]\w*_\w+|[a-z]\w*(?:\.[A-Za-z_]\w+)+|[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+)$")
NONE: frozenset[str] = frozenset()
THREAD_CHARS = 2000  # an issue's title and the start of its body: where the asker says what they want


def identifiers(text: str) -> set[str]:
    """The code identifiers in `text`, lowercased: snake_case, dotted.names, CamelCase (not 'e.g.', 'in-memory')."""
    return {w.lower() for w in TERM.findall(text) if IDENTIFIER.match(w) and len(w) > 4}


def thread_texts(source: Path) -> list[str]:
    """Each issue's title and the start of its body from an issues.jsonl; [] when it is absent or unreadable."""
    try:
        lines = Path(source).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for line in lines:
        try:
            issue = json.loads(line)
        except ValueError:
            continue
        if isinstance(issue, dict):
            out.append(f"{issue.get('title') or ''}\n{str(issue.get('body') or '')[:THREAD_CHARS]}")
    return out


def asked_texts(sections: Sequence[str], threads: Iterable[str], names: ThreadNames | None = None) -> list[str]:
    """For each section text, the issue threads (joined) that name one of its rare identifiers."""
    return asked_from(rare_owners(sections), len(sections), threads, names)


def rare_owners(sections: Sequence[str]) -> dict[str, list[int]]:
    """Each identifier held by at most MAX_OWNERS of the sections, with the sections holding it."""
    owners: dict[str, list[int]] = {}
    for i, text in enumerate(sections):
        for name in identifiers(text):
            owners.setdefault(name, []).append(i)
    return {name: found for name, found in owners.items() if len(found) <= MAX_OWNERS}


def asked_from(
    rare: dict[str, list[int]], count: int, threads: Iterable[str], names: ThreadNames | None = None
) -> list[str]:
    """`asked_texts` for `count` sections whose rare identifiers are `rare`; `names` remembers each thread's."""
    asked: list[list[str]] = [[] for _ in range(count)]
    if not rare:
        return [""] * count  # no section holds a rare identifier: no thread can reach one
    read = names.of if names is not None else identifiers
    for thread in threads:
        reached = {i for name in read(thread) for i in rare.get(name, ())}
        for i in reached:
            asked[i].append(thread)
    return ["\n".join(found) for found in asked]


class ThreadNames:
    """The identifiers of issue threads, remembered by a digest of each thread: after one issue changed, the docs'
    bridge is worked out again reading the words of that thread alone (the rest were read before). `keep` forgets
    threads no longer in the tracker, so what is remembered stays within one entry per issue."""

    def __init__(self) -> None:
        self._known: dict[bytes, frozenset[str]] = {}
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()  # two corpora of one folder may build their docs at once

    def of(self, thread: str) -> frozenset[str]:
        key = hashlib.blake2b(thread.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            self._seen.add(key)
            found = self._known.get(key)
        if found is None:
            found = frozenset(identifiers(thread)) or NONE
            with self._lock:
                self._known[key] = found
        return found

    def keep(self) -> None:
        """Forget every thread not read since the last `keep`."""
        with self._lock:
            self._known = {key: self._known[key] for key in self._seen if key in self._known}
            self._seen = set()

    def __len__(self) -> int:
        return len(self._known)
