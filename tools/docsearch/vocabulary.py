"""The words people ask with, mapped to the words job-queue docs are written in.

Users ask "how do I pause the workers" and "run it every night"; docs say `suspend` and `cron`.
Stemming cannot bridge that (the embedding model of docs_semantic.py does in part, when installed),
so search adds these doc words to a query, at reduced weight, when the plain words appear in it. The table is general
programming, job-queue and operations vocabulary that a maintainer of any such project would write (it serves Orbit's
docs as well as RQ's): no project's identifiers, no phrases lifted from evaluation questions (an earlier, larger table
was, and it did not carry over to questions it had not seen: bench/docs_questions.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

EXPANSION_WEIGHT = 0.5  # an added word counts half as much as a word the user typed
# Conversational filler in questions: it matches everywhere and ranks nothing.
FILLER = frozenset(
    """make sure need needs want wants way ways really please mine ours right now someone
    something thing things possible able anyone else actually okay tell let lets go goes going""".split()
)

SYNONYMS: dict[str, str] = {
    # Everyday words for the things themselves; no entry names one project's identifiers.
    "task": "job",
    "tasks": "job",
    "kill": "stop cancel",
    "abort": "stop cancel",
    "terminate": "stop",
    "halt": "stop",
    "error": "fail exception",
    "errored": "fail exception",
    "crash": "fail exception",
    "crashes": "fail exception",
    "try again": "retry",
    "rerun": "retry",
    "later": "schedule delay",
    "future": "schedule",
    "periodic": "interval cron",
    "periodically": "interval cron",
    "recurring": "interval cron",
    "regularly": "interval cron",
    "nightly": "cron daily",
    "daily": "cron",
    "weekly": "cron",
    "hourly": "cron",
    "too long": "timeout",
    "hangs": "timeout",
    "duplicate": "unique",
    "batch": "bulk group",
    "at once": "bulk",
    "throttle": "limit concurrency",
    "simultaneous": "concurrency",
    "same time": "concurrency",
    "pause": "suspend",
    "unpause": "resume",
    "notify": "callback webhook",
    "notification": "callback webhook",
    "hook": "callback",
    "http": "webhook",
    "terminal": "cli command",
    "shell": "cli command",
    "command line": "cli command",
    "console": "cli",
    "state": "status",
    "states": "status",
    "lifecycle": "status",
    "return value": "result",
    "output": "result",
    "expire": "ttl",
    "expiry": "ttl",
    "retention": "ttl",
    "purge": "empty delete",
    "clear": "empty delete",
    "how many": "count",
    "json": "serializer",
    "pickle": "serializer",
    "msgpack": "serializer",
    "child process": "fork process",
    "subprocess": "fork process",
    "shut down": "shutdown",
    "gracefully": "shutdown",
    "reboot": "restart",
    "settings": "config configuration",
    "options": "config arguments",
    "service": "systemd supervisor",
    "daemon": "systemd supervisor",
    "dashboard": "monitor",
}
_WORD = re.compile(r"[\w@-]+")


def expansions(query: str, stem: Callable[[str], str]) -> list[str]:
    """Doc words for the plain phrases in `query` (matched on stems, so 'crashed' finds 'crash')."""
    asked = f" {_stems(query, stem)} "
    added = [w for phrase, doc_words in _stemmed(stem) if phrase in asked for w in doc_words.split()]
    return list(dict.fromkeys(added))


@functools.lru_cache(maxsize=4)
def _stemmed(stem: Callable[[str], str]) -> tuple[tuple[str, str], ...]:
    """The table's phrases stemmed once: (' stemmed phrase ', doc words)."""
    return tuple((f" {_stems(phrase, stem)} ", doc_words) for phrase, doc_words in SYNONYMS.items())


def _stems(text: str, stem: Callable[[str], str]) -> str:
    return " ".join(stem(w) for w in _WORD.findall(text.lower()))


def is_rare(word: str, first: bool = False) -> bool:
    """A word that names something (a product, a tool, a code) rather than an ordinary English word: an
    identifier (`3.1.0`, `lease_seconds`, `rq.Retry`, `ORB-1202`), capitals inside it (`PostgreSQL`,
    `AWS`), or a capitalised word not at the start of the text (`Kafka`). An ordinary lowercase word
    (reply, box, went, command-line) never is: the docs not having it says nothing about the topic."""
    if any(c.isdigit() or c in "_." for c in word.strip("_.")):
        return True
    if any(c.isupper() for c in word[1:]):
        return True
    return word[:1].isupper() and not first
