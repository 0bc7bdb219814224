"""A doc section cut into passages the embedding model reads whole, each led by its page title and heading path.

The model keeps only a text's first 256 word pieces, so a long section embedded whole is judged by its
opening: a question answered further down never meets it. Here each section's text is cut into
passages of at most `budget` word pieces (heading path included) on its own boundaries: paragraphs,
then sentences, then words; a code block stays whole when it fits, else it is cut between lines. A
heading line inside the text (a section searched with its subsections) is never left at a passage's
end: it opens the next one. Search scores a section by its best passage (tools/docs_semantic.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tools.docs_markup import FENCE

# Word pieces per passage, [CLS] and [SEP] and the heading path included (the model keeps 256).
# Chosen on the RQ development questions only (see bench/docs_questions.py).
PASSAGE_TOKENS = 160
SENTENCE = re.compile(r"(?<=[.!?:;])\s+(?=\S)")
HEADING_LINE = re.compile(r"^ {0,3}#{1,6}[ \t]+\S")

Counter = Callable[[Sequence[str]], list[int]]  # word pieces of each text ([CLS] and [SEP] included)


def prefix(title: str, heading: str) -> str:
    """What leads each passage of a section: its page title and heading path."""
    return f"{title} › {heading}" if heading else title


def passages(title: str, heading: str, text: str, count: Counter, budget: int = PASSAGE_TOKENS) -> list[str]:
    """`text` as passages of at most `budget` word pieces, each `title › heading` then its lines.

    A single line of code or a single word longer than the budget is the only thing that can exceed
    it (the model then cuts it). A section with no text is its heading path alone: one passage."""
    head = prefix(title, heading)
    blocks = _blocks(text)
    if not blocks:
        return [head]
    room = max(budget - count([head])[0], 16)  # `head`'s count holds [CLS] and [SEP]: the room is for text
    pieces: list[str] = []
    for block, size in zip(blocks, _sizes(blocks, count), strict=True):
        pieces += [block] if size <= room else _cut(block, room, count)
    return [f"{head}\n{group}" for group in _pack(pieces, room, count)]


def _sizes(texts: list[str], count: Counter) -> list[int]:
    """Word pieces of each text without [CLS] and [SEP] (joined texts add up to about the sum)."""
    return [max(n - 2, 1) for n in count(texts)]


def _blocks(text: str) -> list[str]:
    """Paragraphs and whole code blocks, in order; a heading line is joined to the block after it."""
    blocks: list[str] = []
    current: list[str] = []
    in_fence = False
    heading: list[str] = []

    def close() -> None:
        if current:
            blocks.append("\n".join([*heading, *current]))
            heading.clear()
            current.clear()

    for line in text.splitlines():
        if FENCE.match(line):
            if not in_fence:
                close()
            current.append(line)
            in_fence = not in_fence
            if not in_fence:
                close()
        elif in_fence:
            current.append(line)
        elif not line.strip():
            close()
        elif HEADING_LINE.match(line):
            close()
            heading.append(line.strip())
        else:
            current.append(line)
    close()
    if heading:  # a heading with nothing after it
        blocks.append("\n".join(heading))
    return blocks


def _cut(block: str, room: int, count: Counter) -> list[str]:
    """A block too long for one passage, as pieces that fit: lines of code, else sentences, else words."""
    lines = block.splitlines()
    if any(FENCE.match(line) for line in lines):
        return _pack(lines, room, count)  # code: between lines, never inside one
    units = [s for line in lines for s in SENTENCE.split(line) if s.strip()]
    out: list[str] = []
    for unit, size in zip(units, _sizes(units, count), strict=True):
        if size <= room:
            out.append(unit)
        else:
            words = unit.split()
            share = max(1, len(words) * room // size)  # words per piece, from the unit's own density
            out += [" ".join(words[i:i + share]) for i in range(0, len(words), share)]
    return _pack(out, room, count)


def _pack(parts: list[str], room: int, count: Counter) -> list[str]:
    """Consecutive `parts` joined by newlines into as few pieces as fit `room`."""
    out: list[list[str]] = [[]]
    used = 0
    for part, size in zip(parts, _sizes(parts, count), strict=True):
        if out[-1] and used + size > room:
            out.append([])
            used = 0
        out[-1].append(part)
        used += size
    return ["\n".join(group) for group in out]
