"""The words people ask with, mapped to the words job-queue docs are written in.

Users ask "how do I pause the workers" and "run it every night"; docs say `suspend` and `cron`.
Stemming cannot bridge that, and no embedding model ships as a package small enough to load in
under a second, so search adds these doc words to a query, at reduced weight, when the plain words
appear in it. The table is general job-queue and operations vocabulary (it serves Orbit's docs as
well as RQ's), not a list of one project's section titles.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

EXPANSION_WEIGHT = 0.5  # an added word counts half as much as a word the user typed
# Conversational filler in questions: it matches everywhere and ranks nothing.
FILLER = frozenset("""make sure need needs want wants way ways really please mine ours right now someone
    something thing things possible able anyone else actually okay tell let lets go goes going""".split())

SYNONYMS: dict[str, str] = {
    # everyday words for the things themselves
    "task": "job", "tasks": "job", "end up": "registry", "raised": "exception fail",
    "refresh": "interval poll update", "refreshing": "interval poll update",
    # stopping, cancelling, killing
    "kill": "stop cancel", "abort": "stop cancel", "terminate": "stop kill", "halt": "stop",
    "never run": "cancel", "never executed": "cancel", "by mistake": "cancel",
    # failure and retry
    "error": "fail failed exception", "errored": "fail failed exception", "crash": "fail exception",
    "crashes": "fail exception", "broke": "fail", "try again": "retry", "tried again": "retry",
    "rerun": "retry requeue", "run again": "retry requeue repeat", "back on the queue": "requeue",
    # time: later, periodic, limits
    "later": "schedule delay", "specific time": "schedule enqueue_at", "at a time": "schedule enqueue_at", "tomorrow": "schedule enqueue_at", "future": "schedule",
    "every night": "cron daily", "nightly": "cron daily", "daily": "cron", "weekly": "cron",
    "every": "interval cron repeat", "periodic": "interval cron", "periodically": "interval cron",
    "recurring": "cron interval repeat", "regularly": "cron interval", "forever": "interval",
    "too long": "timeout", "longer than": "timeout", "hangs": "timeout",
    "stuck": "timeout",
    # ordering and dependencies
    "wait until": "depend dependency depends_on", "wait for": "depend dependency depends_on",
    "another job": "depend dependency", "after another": "depend dependency", "chain": "depend dependency",
    "prerequisite": "depend dependency", "ahead": "position", "in line": "position", "in the line": "position",
    "priority": "order", "first": "order",
    # duplicates, many at once, limits on concurrency
    "twice": "unique duplicate", "duplicate": "unique", "same job": "unique",
    "thousands": "bulk many", "at once": "bulk many", "batch": "bulk group", "lots": "bulk many",
    "same moment": "concurrency rate_limit", "same time": "concurrency rate_limit",
    "at most": "concurrency limit", "cap": "concurrency limit", "throttle": "rate limit concurrency",
    "simultaneous": "concurrency",
    # pausing
    "pause": "suspend", "freeze": "suspend", "continue": "resume", "unpause": "resume",
    # notifications, hooks
    "url": "webhook", "http": "webhook", "notify": "webhook callback", "notification": "webhook callback",
    "hook": "callback handler", "completes": "success callback", "succeeds": "success callback",
    # command line
    "terminal": "cli command console", "shell": "cli command console", "command line": "cli command",
    "from the terminal": "cli", "console": "cli",
    # data about jobs
    "states": "status", "state": "status", "lifecycle": "status", "progress": "meta",
    "extra data": "meta", "custom data": "meta", "which job": "current get_current_job",
    "itself": "current",
    "return value": "result", "output": "result",
    "expire": "ttl", "discard": "ttl", "how long": "ttl", "retention": "ttl", "keep": "ttl",
    "clean up": "ttl cleanup", "purge": "empty delete", "remove them all": "empty", "clear": "empty",
    "how many": "count len number",
    # serialization and encoding
    "json": "serializer", "pickle": "serializer", "msgpack": "serializer", "format": "serializer",
    "strings": "decode decode_responses encoding", "bytes": "decode decode_responses encoding",
    "unicode": "decode encoding",
    # connections
    "failover": "sentinel", "high availability": "sentinel", "replica": "sentinel",
    # processes
    "several worker": "pool", "multiple workers": "pool", "many workers": "pool",
    "several processes": "pool", "worker processes": "pool", "exits": "burst", "exit": "burst",
    "quit": "burst", "empty": "burst", "drain": "burst", "without forking": "simpleworker fork",
    "child process": "horse fork", "subprocess": "horse fork", "own process": "simpleworker same process",
    "in-process": "simpleworker", "out of memory": "oom horse killed", "memory": "oom",
    "power": "interrupt kill", "dies": "interrupt kill abandoned", "died": "killed horse",
    "alive": "all registered", "see what": "information",
    "gracefully": "shutdown sigterm warm", "shut down": "shutdown", "deploy": "shutdown",
    "without losing": "finish current",
    # settings, services, integrations
    "settings": "config configuration", "options": "config arguments", "service": "systemd supervisor",
    "reboot": "systemd restart", "daemon": "systemd supervisor", "error tracker": "sentry",
    "unit tests": "is_async testing", "synchronously": "is_async", "immediately": "is_async",
    "same process": "is_async simpleworker", "no worker": "is_async bypass",
    "windows": "fork windows", "dashboard": "monitoring rq info",
    "decorator": "@job decorator", "defined in the script": "__main__ importable",
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
