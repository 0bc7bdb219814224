"""What an answer cited, as it was when it was given: each docs section by the hash of its text, each file
by its blob and the hash of its text, each issue by its state (issue 39, "answers corrected when their
sources change").

Releases by the hash of their notes. Only sources the answer cites (workers/agent/sources.py) and a tool showed: a docs
section the run read (`get_doc_section`'s header) or, for a cited page it only searched, the first of its sections
search listed; a file the run read whose path the answer names. Hashes are of the text with its whitespace collapsed, so
a change of spacing or line wrapping is no change.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from tools.corpus import Corpus
from tools.docsearch.pages import Page, Section
from workers.agent.sources import unquoted
from workers.runs.state import RunState

READ = re.compile(r"^\[([a-z0-9][a-z0-9_-]*) § ([^\]\n]+)\]", re.M)  # get_doc_section's header
LISTED = re.compile(r"^- ([a-z0-9][a-z0-9_-]*) § (.+?) \[", re.M)  # a search_docs hit
RELEASE = re.compile(r"^(?:- )?release (\S+) \[", re.M)  # search_history's and get_history_item's release header
GONE = "gone"


@dataclass(frozen=True)
class Cited:
    """One source of one answer: `key` names it across answers, `fingerprint` is what it was."""

    key: str  # doc:<doc_id>§<heading>, file:<path>, issue:<number>, release:<tag>
    label: str  # how a note names it: 'setup § Redis', 'src/app.py', '#12', 'v3.1.1'
    fingerprint: str
    detail: str = ""  # a file's blob sha


def digest(text: str) -> str:
    """The hash of `text` with every run of whitespace made one space: spacing and wrapping change nothing."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:20]


def cited(run: RunState, corpus: Corpus) -> list[Cited]:
    """The sources of `run`'s answer, with what each is now (the answer's time, when called at its end)."""
    found: dict[str, Cited] = {}
    outputs = _outputs(run)
    docs = [s for s in run.sources if not s.startswith(("#", "http://", "https://"))]
    read = [(d, h.strip()) for text in outputs.get("get_doc_section", []) for d, h in READ.findall(text)]
    listed = [(d, h.strip()) for text in outputs.get("search_docs", []) for d, h in LISTED.findall(text)]
    for doc_id in docs:
        page = corpus.docs.pages.get(doc_id)
        headings = [h for d, h in read if d == doc_id] or [h for d, h in listed if d == doc_id][:1]
        for heading in dict.fromkeys(headings):
            if page is not None:
                item = doc_section(page, heading)
                found.setdefault(item.key, item)
    for source in run.sources:
        if source.startswith("#") and source[1:].isdigit():
            issue = corpus.issues.get(int(source[1:]))
            if issue is not None:
                found.setdefault(f"issue:{issue.id}", Cited(f"issue:{issue.id}", f"#{issue.id}", issue.state))
    answer = run.answer or ""
    for path in dict.fromkeys(_read_paths(run)):
        if corpus.knowledge is not None and path in answer and (kept := code_file(corpus, path)) is not None:
            found.setdefault(kept.key, kept)
    for tag in dict.fromkeys(
        t
        for texts in (outputs.get("search_history", []), outputs.get("get_history_item", []))
        for text in texts
        for t in RELEASE.findall(text)
    ):
        if (
            re.search(rf"(?<![\w.-]){re.escape(tag)}(?![\w-])", unquoted(answer))
            and (notes := release(corpus, tag)) is not None
        ):
            found.setdefault(notes.key, notes)
    return list(found.values())


def release(corpus: Corpus, tag: str) -> Cited | None:
    """A release's notes as they are now; None without a knowledge index, GONE when the release is gone."""
    if corpus.knowledge is None:
        return None
    item = corpus.knowledge.item("release", tag)
    return Cited(
        f"release:{tag}", tag, digest(item.body) if item is not None else GONE, (item.url or "") if item else ""
    )


def doc_section(page: Page, heading: str) -> Cited:
    """The section `heading` of `page` as it is now (GONE when no section has that heading any more)."""
    section = _section(page, heading)
    key = f"doc:{page.doc_id}§{heading}"
    return Cited(key, f"{page.doc_id} § {heading}", digest(section.text) if section is not None else GONE)


def code_file(corpus: Corpus, path: str) -> Cited | None:
    """The synced file at `path` as it is now; None without a code index, GONE when it was removed."""
    if corpus.knowledge is None:
        return None
    found = corpus.knowledge.file(path)
    if found is None:
        return Cited(f"file:{path}", path, GONE)
    return Cited(f"file:{path}", path, digest(found[1]), found[0])


def now(key: str, corpus: Corpus) -> Cited | None:
    """What the source `key` is now in `corpus`; None when it cannot be told (a page that is gone says GONE)."""
    kind, _, rest = key.partition(":")
    if kind == "doc":
        doc_id, _, heading = rest.partition("§")
        page = corpus.docs.pages.get(doc_id)
        return doc_section(page, heading) if page is not None else Cited(key, f"{doc_id} § {heading}", GONE)
    if kind == "file":
        return code_file(corpus, rest)
    if kind == "release":
        return release(corpus, rest)
    if kind == "issue" and rest.isdigit():
        issue = corpus.issues.get(int(rest))
        return Cited(key, f"#{rest}", issue.state if issue is not None else GONE)
    return None


def section_text(key: str, corpus: Corpus) -> str:
    """The section's own text now (for the note), '' when it is not a docs section or is gone."""
    kind, _, rest = key.partition(":")
    doc_id, _, heading = rest.partition("§")
    page = corpus.docs.pages.get(doc_id) if kind == "doc" else None
    section = _section(page, heading) if page is not None else None
    return section.body if section is not None else ""


def _section(page: Page, heading: str) -> Section | None:
    return next((s for s in page.sections if s.heading == heading), None)


def _outputs(run: RunState) -> dict[str, list[str]]:
    """Each tool's outputs in the run (errors left out), by the tool's name."""
    names = {str(i.get("call_id")): str(i.get("name")) for i in run.items if i.get("type") == "function_call"}
    found: dict[str, list[str]] = {}
    for item in run.items:
        output = str(item.get("output") or "")
        if item.get("type") == "function_call_output" and not output.startswith("Error"):
            found.setdefault(names.get(str(item.get("call_id")), ""), []).append(output)
    return found


def _read_paths(run: RunState) -> list[str]:
    """The paths the run's read_file calls asked for."""
    paths = []
    for item in run.items:
        if item.get("type") == "function_call" and item.get("name") == "read_file":
            try:
                path = json.loads(str(item.get("arguments") or "{}")).get("path")
            except ValueError:
                continue
            if isinstance(path, str) and path.strip():
                paths.append(path.strip().lstrip("/"))
    return paths
