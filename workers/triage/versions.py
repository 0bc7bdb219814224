"""The version a report names: `X.Y.Z` numbers in its text, not those of Python or a broker.

A version label is suggested only for a version the report names that the repository has a label
for (the newest of them, label_votes.py); numbers on a line about Python, Redis, Postgres, an OS or
a library are left out.
"""

from __future__ import annotations

import re

NUMBER = re.compile(r"(?<![\w.])v?(\d+\.\d+\.\d+)(?![\w.]*\d)")
OTHER = re.compile(
    r"\b(python|py|redis|postgres|postgresql|pg|ubuntu|debian|alpine|kubernetes|k8s|helm|node|django"
    r"|celery|docker|macos|windows|kernel|glibc|pip|valkey|sentinel|openssl|pytest|flask|mysql)\b\W*\S*$",
    re.IGNORECASE,
)


def reported_versions(text: str) -> list[str]:
    """Every X.Y.Z in `text` not announced as another program's version, in order."""
    found = []
    for line in text.splitlines():
        for match in NUMBER.finditer(line):
            before = line[: match.start()]
            if OTHER.search(before[-40:]):
                continue
            found.append(match.group(1))
    return found
