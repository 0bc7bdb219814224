"""A changelog's entries rank a little below the pages that explain a thing.

A release-notes page holds a section per version ("0.38.0 (July 20, 2024)", "v2.1", "[1.2.3] - 2024-01-01"), each
a list of one-line changes naming the features they touch, so it matches a how-to question in words and in meaning
while the page that explains the feature is the answer. On the Starlette development set
(bench/evals/starlette_docs_dev.jsonl, whose docs keep their release notes) such entries took top-3 places from the
answer; lowering them by RELEASE_PENALTY of the hybrid score (whose best is about 0.7-0.9) put two more answers in
the top 3 (25 of 33 against 23), the same from 0.03 to 0.2; RQ's development sets have no such page and are
unchanged. A question that names a version (`0.38`, `v2.1`) is about that release: there nothing is lowered. A
numbered heading with words after its number ("1.2 Configuration") is not a version.
"""

from __future__ import annotations

import re

RELEASE_PENALTY = 0.05  # taken off a changelog entry's hybrid score (see the module's note)
# A heading that is a version and nothing else but a date or a note in brackets.
HEADING = re.compile(
    r"^\W*(?:v|version\s+|release\s+)?\d+(?:\.\d+)+[\w.+-]*\W*(?:\(.*\)|\d{4}-\d\d-\d\d|[-–—]\s*\S.*\d{4}.*)?\W*$", re.I
)
VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+")  # a version named in a question: 0.38, v2.1, 3.1.0


def is_release(path: tuple[str, ...]) -> bool:
    """Is a section with this heading path a changelog entry (its own heading or a parent's a version)?"""
    return any(HEADING.match(part) for part in path)


def names_version(query: str) -> bool:
    """Does the question name a version (then changelog entries keep their score)?"""
    return VERSION.search(query) is not None
