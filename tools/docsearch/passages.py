"""A doc section cut into passages the embedding model reads whole, each led by its page title and heading path.

The model keeps only a text's first 256 word pieces, so a long section embedded whole is judged by its
opening: a question answered further down never meets it. Here each section's text is cut into
passages of at most `budget` word pieces (heading path included) on its own boundaries: paragraphs,
then sentences, then words; a code block stays whole when it fits, else it is cut between lines. A
heading line inside the text (a section searched with its subsections) is never left at a passage's
end: it opens the next one. Search scores a section by its best passage (tools/docsearch/semantic.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tools.docsearch.markup import FENCE

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
    parts: list[tuple[str, int]] = []
    for block, size in zip(blocks, _sizes(blocks, count), strict=True):
        parts += [(block, size)] if size <= room else _cut(block, room, count)
    return [f"{head}\n{group}" for group, _ in _pack(parts, room)]


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


def _cut(block: str, room: int, count: Counter) -> list[tuple[str, int]]:
    """A block too long for one passage, as pieces that fit (with their sizes), cut between lines of code,
    else between sentences, else between runs of words."""
    lines = block.splitlines()
    if any(FENCE.match(line) for line in lines):
        return _pack(list(zip(lines, _sizes(lines, count), strict=True)), room)  # code: between lines, never inside one
    units = [s for line in lines for s in SENTENCE.split(line) if s.strip()]
    out: list[tuple[str, int]] = []
    for unit, size in zip(units, _sizes(units, count), strict=True):
        out += [(unit, size)] if size <= room else _runs(unit, size, room, count)
    return _pack(out, room)


def _runs(unit: str, size: int, room: int, count: Counter) -> list[tuple[str, int]]:
    """A sentence too long for one passage as runs of words that fit (a single word may not). The
    model's counts stop at its limit, so a run cut by the density `size` shows is counted again and
    cut again while it is still too long."""
    words = unit.split()
    if len(words) <= 1:
        return [(unit, size)]
    share = max(1, min(len(words) - 1, len(words) * room // size))  # words per run: at least two runs
    runs = [" ".join(words[i : i + share]) for i in range(0, len(words), share)]
    out: list[tuple[str, int]] = []
    for run, run_size in zip(runs, _sizes(runs, count), strict=True):
        out += [(run, run_size)] if run_size <= room else _runs(run, run_size, room, count)
    return out


def _pack(parts: list[tuple[str, int]], room: int) -> list[tuple[str, int]]:
    """Consecutive `parts` joined by newlines into as few pieces as fit `room` (a part larger than it stays
    whole), each with its size."""
    out: list[tuple[list[str], int]] = []
    for part, size in parts:
        if not out or out[-1][1] + size > room:
            out.append(([], 0))
        out[-1][0].append(part)
        out[-1] = (out[-1][0], out[-1][1] + size)
    return [("\n".join(group), used) for group, used in out]
