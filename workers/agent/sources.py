"""The sources a final answer cites: doc ids and issue numbers that a tool actually returned.

Citing is not mentioning. Quoted lines (`> ...`) are what a source says, so ids inside them are
not citations; and a doc id that is an ordinary word (`workers`, `payloads`) counts only where it
is written as a citation (`workers`, workers §, (see workers), a link to it), never because the
word occurs in a sentence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only typed here: printing an answer (`source_url`) needs no pydantic (workers/runs/record_json.py)
    from workers.runs.state import RunState

_ISSUE_REF = re.compile(r"(?:(?<![\w.-])([\w.-]+/[\w.-]+)(?=#))?#(\d{1,7})\b")  # #42, owner/b#42 (issue 38)
_REPO_ISSUE = re.compile(r"^[\w.-]+/[\w.-]+#\d+$")
_REPO_DOC = re.compile(r"^[\w.-]+/[\w.-]+: ")
_URL = re.compile(r"https?://[^\s()<>`'\"]+[^\s()<>`'\".,;:]")  # a permalink or PR/release/discussion URL
# Beyond what `str.lower` maps to an ASCII letter, re.IGNORECASE also matches these to `i`, `i` and `s` (every code
# point checked: tests/workers/agent/test_sources.py); U+0130 first, as its `lower` is two characters.
_IGNORECASE_ALSO = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


def _seen(run: RunState) -> str:
    """What the run's tools showed (a refusal shows nothing)."""
    outputs = (str(item.get("output", "")) for item in run.items if item.get("type") == "function_call_output")
    return "\n".join(out for out in outputs if not out.startswith("Error"))


def named_docs(run: RunState, pages_of: Callable[[str], Iterable[str]], repos: Iterable[str]) -> list[str]:
    """A run over several repositories (issue 38): the docs it cites that a tool showed under a repository's name
    (`- owner/b: id`), each as `owner/b: id`; `pages_of(repo)` lists a repository's doc ids, asked only of the
    repositories the tools named."""
    seen, answer = _seen(run), unquoted(run.answer or "")
    found: list[str] = []
    for repo in repos:
        if f"{repo}: " not in seen:
            continue
        found += [f"{repo}: {d}" for d in pages_of(repo) if _cites(answer, d) and _mentions(seen, f"{repo}: {d}")]
    return found


def sources_of(run: RunState, doc_ids: Iterable[str]) -> list[str]:
    """Cited and seen: an id the answer names but no tool showed is not a source (it may be made up)."""
    seen = _seen(run)
    answer = unquoted(run.answer or "")
    found: list[str] = []
    for doc_id in doc_ids:
        if _cites(answer, doc_id) and _mentions(seen, doc_id):
            found.append(doc_id)
    for repo, number in dict.fromkeys(_ISSUE_REF.findall(_URL.sub("", answer))):
        if re.search(rf"{re.escape(repo)}#{number}\b", seen):  # `owner/b#42` (several repositories) as it was shown
            found.append(f"{repo}#{number}")
    seen_urls = set(_URL.findall(seen))
    found += [url for url in dict.fromkeys(_URL.findall(answer)) if url in seen_urls]
    return found


def unquoted(text: str) -> str:
    """The text without its Markdown quotation lines."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))


def _cites(text: str, doc_id: str) -> bool:
    if doc_id.isalpha():  # an ordinary word: only its citation forms count
        if doc_id.isascii() and doc_id.lower() not in _folded(text):
            return False  # no form can match: its pattern is not compiled (each id's, in a worker's first run)
        name = re.escape(doc_id)
        forms = rf"`{name}`|(?<![\w-]){name} §|\(\s*{name}\s*[),;]|\bsee\s+{name}(?![\w-])|\]\({name}(?![\w-])"
        return re.search(forms, text, re.IGNORECASE) is not None
    return _mentions(text, doc_id)


def source_url(source: str, *, docs_base_url: str | None, issues_base_url: str | None) -> str | None:
    """Where a source lives ('#12' under the issues URL, a doc id under the docs URL, a URL (a permalink,
    a PR) is its own); None without a base. `{id}` in the base URL is replaced; otherwise the id is
    appended after a slash."""
    if source.startswith(("https://", "http://")):
        return source
    if source.startswith("#") and source[1:].isdigit():
        base, ident = issues_base_url, source[1:]
    elif _REPO_ISSUE.match(source) or _REPO_DOC.match(source):  # another repository's: only its own link is right
        return None
    else:
        base, ident = docs_base_url, source
    if not base:
        return None
    return base.replace("{id}", ident) if "{id}" in base else base.rstrip("/") + "/" + ident


@functools.lru_cache(maxsize=4)
def _folded(text: str) -> str:
    """`text` as re.IGNORECASE compares it with an ASCII word: wherever the word matches, its lower case is here."""
    return text.translate(_IGNORECASE_ALSO).lower()


def _mentions(text: str, doc_id: str) -> bool:
    return doc_id in text and re.search(rf"(?<![\w-]){re.escape(doc_id)}(?![\w-])", text) is not None
