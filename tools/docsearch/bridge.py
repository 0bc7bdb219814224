"""Users' words for doc sections, learned from the project's own issue threads (doc2query from real data).

People ask in their words ("stop a running job"); docs answer in theirs (`send_stop_job_command`).
An issue thread is written in the first and often names the second: a function, a class, a setting
that the docs explain. So a section that holds a rare identifier also gets, as a low-weighted search
field, the words of the issue titles and bodies that name that identifier. Only identifiers (snake
case, dotted names, CamelCase) held by at most `MAX_OWNERS` sections count: a word every page uses
would spread one issue's words everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from tools.fts_query import TERM

MAX_OWNERS = 3
IDENTIFIER = re.compile(r"^(?=.*[a-z])(?:[A-Za-z]\w*_\w+|[a-z]\w*(?:\.[A-Za-z_]\w+)+|[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+)$")
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


def asked_texts(sections: Sequence[str], threads: Iterable[str]) -> list[str]:
    """For each section text, the issue threads (joined) that name one of its rare identifiers."""
    owners: dict[str, list[int]] = {}
    for i, text in enumerate(sections):
        for name in identifiers(text):
            owners.setdefault(name, []).append(i)
    rare = {name: found for name, found in owners.items() if len(found) <= MAX_OWNERS}
    asked: list[list[str]] = [[] for _ in sections]
    for thread in threads:
        reached = {i for name in identifiers(thread) for i in rare.get(name, ())}
        for i in reached:
            asked[i].append(thread)
    return ["\n".join(found) for found in asked]
