"""The offline model's answer from the doc sections it read: the best section's most relevant passage, with its code.

Search (hybrid when the embedding model is installed) already ranked the sections by meaning and by
words; the offline model reads the best two and quotes, from the first that has every identifier the
question names (in its prose or in its code: `app.config` or `init_db` are often only in the example), the
passage that shares most of the question's words: a prose paragraph and the code block right under it
("You can set timeouts for an individual request:" says nothing without the line that does it). The prose
is quoted; the code follows as a fenced block of its own, so a quoted line never runs into a line of code.
Search's order is trusted even when that section shares no word of the question (it was ranked first by
meaning): demanding a shared word quoted the wrong section more often (bench/offline_answers.py). One
exception: when search ranked a section's own subsection second, the subsection is quoted. Both are ranked
only when the parent is too long for one read (it is then searched as its own lead text, each subsection
apart), so the parent's read holds its lead alone, and the subsection is the narrower answer (RQ dev: 35 -> 36
of 48; held out unchanged).
It says how sure it is in words a reader can check: likely right when the section has every
identifier and most of the question's words, else that it is the closest section found and which of
the question's words it shares, or that it shares none. The other section read is named as "see also".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.docsearch.pages import SEP
from workers import wording as phrases
from workers.agent.offline_evidence import Question, listing

_HEAD = re.compile(r"^\[([a-z0-9][a-z0-9_-]*)(?: § (.*?))?\] (.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NOTE = re.compile(r"^\[(?:cut|more|section truncated|body cut)\b[^\]]*\]")
MAX_QUOTE_CHARS = 600
MAX_QUOTE_LINES = 6
MAX_CODE_LINES = 12


@dataclass(frozen=True)
class Block:
    """A prose paragraph, or a code block (its lines without the fences; `language` from the opening fence)."""

    lines: list[str]
    code: bool = False
    language: str = ""


@dataclass(frozen=True)
class Read:
    """One get_doc_section output: where it is from, and its paragraphs and code blocks in order."""

    doc_id: str
    heading: str
    title: str
    blocks: list[Block]

    @property
    def where(self) -> str:
        return f"`{self.doc_id}`" + (f" § {self.heading}" if self.heading else "") + f" ({self.title})"

    def inside(self, other: Read) -> bool:
        """Is this a subsection of `other` (a page's intro holds every section of its page)?"""
        return (
            self.doc_id == other.doc_id
            and bool(self.heading)
            and (not other.heading or self.heading.startswith(other.heading + SEP))
        )

    @property
    def paragraphs(self) -> list[list[str]]:
        return [b.lines for b in self.blocks if not b.code]

    @property
    def text(self) -> str:
        """The heading, prose and code: what the section holds (code counts: the docs' examples name things)."""
        return "\n".join([self.heading, *("\n".join(b.lines) for b in self.blocks)])


def read(output: str) -> Read | None:
    """A get_doc_section output as a Read; None for anything else (an error, an intro listing)."""
    lines = output.splitlines()
    head = _HEAD.match(lines[0]) if lines else None
    if head is None:
        return None
    title = re.sub(r" \(applies to [^)]*\)$", "", head.group(3))
    return Read(head.group(1), (head.group(2) or "").strip(), title, _blocks(lines[1:]))


def answer(asked: Question, sections: list[Read]) -> str | None:
    """The quoted answer from the best of `sections`, or None when none has prose holding every identifier
    the question names."""
    useful = quotable(asked, sections)
    if not useful:
        return None
    best = useful[0]
    prose, code = _best_passage(asked, best.blocks)
    found = asked.found_in(best.text)
    if not found:
        sure = phrases.OFFLINE_CLOSEST
    else:
        shared = listing([f"“{w}”" for w in found])
        sure = (phrases.OFFLINE_SURE if asked.answered_by(best.text) else phrases.OFFLINE_UNSURE).format(found=shared)
    parts = [
        phrases.OFFLINE_FROM_DOCS.format(where=best.where),
        *([_quote(prose)] if prose else []),
        *([_fenced(code)] if code else []),
        sure,
    ]
    others = [s.where for s in useful[1:]]
    if others:
        parts.append(phrases.OFFLINE_SEE_ALSO.format(where=listing(others)))
    return "\n".join(parts)


def quotable(asked: Question, sections: list[Read]) -> list[Read]:
    """The sections with every identifier the question names, the one `answer` quotes first."""
    useful = [s for s in sections if s.blocks and asked.names_all(s.text)]
    if len(useful) > 1 and useful[1].inside(useful[0]):  # the parent's lead, then its subsection: the narrower
        useful = [useful[1], useful[0], *useful[2:]]
    # search's order: taking the section sharing most words instead did worse (bench/offline_answers.py)
    return useful


def _blocks(lines: list[str]) -> list[Block]:
    """Prose paragraphs (blank-line separated, headings, console lines and read-on notes left out) and code blocks."""
    out: list[Block] = []
    current: list[str] = []
    fence: str | None = None  # the open fence's language, while inside one

    def close(code: bool = False) -> None:
        if current or code:
            out.append(Block(list(current), code, fence or ""))
            current.clear()

    for line in lines:
        opening = _FENCE.match(line)
        if opening and fence is None:
            close()
            fence = line.strip()[3:].strip()
        elif opening:
            close(code=True)
            fence = None
        elif fence is not None:
            current.append(line.rstrip())
        elif not line.strip() or line.lstrip().startswith(("#", ">>> ", "$ ")) or _NOTE.match(line):
            close()
        else:
            current.append(line.strip())
    if fence is not None:  # a block cut short by the read's limit: still code
        close(code=True)
    close()
    return [b for b in out if any(ln.strip() for ln in b.lines)]


def _best_passage(asked: Question, blocks: list[Block]) -> tuple[list[str], Block | None]:
    """The prose paragraph sharing most of the question's words, with the code block right after it, counted
    together (the first such passage on a tie), cut to a short quote; a paragraph that only leads into the
    next one (ends in ':', no code under it) takes it with it. A section of code alone gives its first block."""
    passages: list[tuple[list[str], Block | None]] = []
    for k, block in enumerate(blocks):
        following = blocks[k + 1] if k + 1 < len(blocks) else None
        if block.code:
            if k == 0:
                passages.append(([], block))
            continue
        lines = list(block.lines)
        code = following if following is not None and following.code else None
        if code is None and lines[-1].endswith(":") and following is not None:
            lines += following.lines
        passages.append((lines, code))
    if not passages:
        return [], None
    hits = [len(asked.found_in("\n".join([*p, *(c.lines if c else [])]))) for p, c in passages]
    prose, code = passages[max(range(len(passages)), key=lambda k: (hits[k], -k))]
    out: list[str] = []
    for line in prose:
        if out and (len(out) >= MAX_QUOTE_LINES or sum(map(len, out)) + len(line) > MAX_QUOTE_CHARS):
            out.append("…")
            break
        out.append(line)
    return out, code


def _fenced(code: Block) -> str:
    """A code block as fenced lines, cut to MAX_CODE_LINES (its indentation kept)."""
    lines = code.lines[:MAX_CODE_LINES] + (["…"] if len(code.lines) > MAX_CODE_LINES else [])
    return "\n".join([f"```{code.language}", *lines, "```"])


def _quote(lines: list[str]) -> str:
    """Quoted lines: shown, not cited (`workers.agent.sources` cites only outside quotes)."""
    return "\n".join(f"> {ln}" for ln in lines)
