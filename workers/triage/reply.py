"""The drafted reply: what a bug report lacks (version, traceback, a minimal reproduction), or the
docs section that answers a question, or nothing.

The reply is built from fixed wording and the project's docs only: it never quotes the issue, so
nothing an issue says can make Atlas post it.
"""

from __future__ import annotations

import re

from tools.docsearch.index import DocsIndex

BUGGY = re.compile(
    r"Traceback|Error\b|Exception\b|\berror\b|\bcrash|\bfails?\b|\bfailed\b|\bbroken\b|\bbug\b"
    r"|\bwrong\b|\bregression\b|doesn't work|does not work|not working|INTERNAL ERROR",
    re.IGNORECASE,
)
QUESTION = re.compile(r"\?\s*$|^(how|what|why|is there|can i|should|does|do i|where)\b", re.IGNORECASE | re.MULTILINE)
VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?\b|\bversion\b|\bmain branch\b|\bmaster\b", re.IGNORECASE)
TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s*File \".+\", line \d+|^\s*\w+(Error|Exception)\b.*:"
    r"|error: |INTERNAL ERROR",
    re.IGNORECASE | re.MULTILINE,
)
CRASHY = re.compile(r"Traceback|Exception\b|Error\b|\bcrash|\braises?\b|\bthrows?\b", re.IGNORECASE)
CODE = re.compile(r"```|^( {4}|\t)\S|`[^`\n]{8,}`", re.MULTILINE)  # a block, or a one-line snippet in backticks
QUESTION_CHARS = 160  # the question is in the title and its first lines; a longer query only costs time
DOCS_COVERAGE = 0.6  # the share of the question's (idf-weighted) words a section must hold to be offered
ASKING = "Thanks for the report."  # how a missing-information reply starts
POINTING = "This may be answered in the docs"  # how a docs reply starts
MISSING = {
    "version": "the version you run (and of Python)",
    "traceback": "the full error output or traceback",
    "reproduction": "a minimal example that reproduces it (the smallest code or command, and what you expected)",
}


def missing_information(title: str, body: str) -> list[str]:
    """For a bug report, which of version, traceback and reproduction it lacks ([] if it is not a bug report)."""
    text = f"{title}\n{body}"
    if not body.strip() or not BUGGY.search(text):
        return []
    missing = []
    if not VERSION.search(body):
        missing.append("version")
    if CRASHY.search(text) and not TRACE.search(body):
        missing.append("traceback")
    if not CODE.search(body):
        missing.append("reproduction")
    return missing


def draft(title: str, body: str, docs: DocsIndex | None) -> str | None:
    """The reply a maintainer could approve, or None when there is nothing useful to say."""
    missing = missing_information(title, body)
    if missing:
        wanted = "\n".join(f"- {MISSING[m]}" for m in missing)
        return f"{ASKING} To look into it we need:\n{wanted}"
    if docs is None or not QUESTION.search(f"{title}\n{body}"):
        return None
    hits = docs.search(f"{title}\n{body[:QUESTION_CHARS]}", k=1, mode="lexical")
    if not hits or hits[0].coverage < DOCS_COVERAGE:
        return None
    hit = hits[0]
    where = f"{hit.title} > {hit.heading}" if hit.heading else hit.title
    return f"{POINTING}: {where} ({hit.doc_id}).\n> {hit.snippet}"
