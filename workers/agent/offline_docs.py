"""The offline model's answer from the doc sections it read: the best section's most relevant passage.

Search (hybrid when the embedding model is installed) already ranked the sections by meaning and by
words; the offline model reads the best two and quotes, from the first that has prose and every
identifier the question names, the prose paragraph that shares most of the question's words (never a
code block: a quoted line of prose must not run into a line of code). Search's order is trusted even
when that section's prose shares no word of the question (it was ranked first by meaning, or by the
words of its code): demanding a shared word quoted the wrong section more often (bench/offline_answers.py).
It says how sure it is in words a reader can check: likely right when the section has every
identifier and most of the question's words, else that it is the closest section found and which of
the question's words it shares, or that it shares none. The other section read is named as "see also".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers import wording as phrases
from workers.agent.offline_evidence import Question, listing

_HEAD = re.compile(r"^\[([a-z0-9][a-z0-9_-]*)(?: § (.*?))?\] (.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NOTE = re.compile(r"^\[(?:cut|more|section truncated|body cut)\b[^\]]*\]")
MAX_QUOTE_CHARS = 600
MAX_QUOTE_LINES = 6


@dataclass(frozen=True)
class Read:
    """One get_doc_section output: where it is from and its prose paragraphs."""

    doc_id: str
    heading: str
    title: str
    paragraphs: list[list[str]]

    @property
    def where(self) -> str:
        return f"`{self.doc_id}`" + (f" § {self.heading}" if self.heading else "") + f" ({self.title})"

    @property
    def text(self) -> str:
        return "\n".join([self.heading, *("\n".join(p) for p in self.paragraphs)])


def read(output: str) -> Read | None:
    """A get_doc_section output as a Read; None for anything else (an error, an intro listing)."""
    lines = output.splitlines()
    head = _HEAD.match(lines[0]) if lines else None
    if head is None:
        return None
    title = re.sub(r" \(applies to [^)]*\)$", "", head.group(3))
    return Read(head.group(1), (head.group(2) or "").strip(), title, _paragraphs(lines[1:]))


def answer(asked: Question, sections: list[Read]) -> str | None:
    """The quoted answer from the best of `sections`, or None when none has prose holding every identifier
    the question names."""
    useful = [s for s in sections if s.paragraphs and asked.names_all(s.text)]
    if not useful:
        return None
    best = useful[0]  # search's order: taking the section sharing most words instead did worse (bench/offline_answers.py)
    passage = _best_paragraph(asked, best.paragraphs)
    found = asked.found_in(best.text)
    if not found:
        sure = phrases.OFFLINE_CLOSEST
    else:
        shared = listing([f"“{w}”" for w in found])
        sure = (phrases.OFFLINE_SURE if asked.answered_by(best.text) else phrases.OFFLINE_UNSURE).format(found=shared)
    parts = [phrases.OFFLINE_FROM_DOCS.format(where=best.where), _quote(passage), sure]
    others = [s.where for s in useful[1:]]
    if others:
        parts.append(phrases.OFFLINE_SEE_ALSO.format(where=listing(others)))
    return "\n".join(parts)


def _paragraphs(lines: list[str]) -> list[list[str]]:
    """Prose paragraphs: blank-line separated runs outside code fences, headings and read-on notes left out."""
    out: list[list[str]] = [[]]
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append([])
        elif in_fence or not line.strip() or line.lstrip().startswith(("#", ">>> ", "$ ")) or _NOTE.match(line):
            out.append([])
        else:
            out[-1].append(line.strip())
    return [p for p in out if p]


def _best_paragraph(asked: Question, paragraphs: list[list[str]]) -> list[str]:
    """The paragraph sharing most of the question's words (the first on a tie), cut to a short quote; a
    paragraph that only leads into what follows (ends in ':') takes the next one with it."""
    hits = [len(asked.found_in("\n".join(p))) for p in paragraphs]
    i = max(range(len(paragraphs)), key=lambda k: (hits[k], -k))
    chosen = list(paragraphs[i])
    if chosen[-1].endswith(":") and i + 1 < len(paragraphs):
        chosen += paragraphs[i + 1]
    out: list[str] = []
    for line in chosen:
        if out and (len(out) >= MAX_QUOTE_LINES or sum(map(len, out)) + len(line) > MAX_QUOTE_CHARS):
            out.append("…")
            break
        out.append(line)
    return out


def _quote(lines: list[str]) -> str:
    """Quoted lines: shown, not cited (`workers.agent.sources` cites only outside quotes)."""
    return "\n".join(f"> {ln}" for ln in lines)
