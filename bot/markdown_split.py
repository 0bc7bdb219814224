"""Split Markdown into parts that each fit a Slack limit, without cutting a block in half.

Parts break between blocks (paragraphs, lists, tables, fenced code). Only a block that alone is
longer than the limit is divided: a code fence by lines, closed at the end of one part and re-opened
with the same fence and info string at the start of the next (a long code line at its last space that fits);
prose by lines, then at a space.
Deterministic: the same text and limit always give the same parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class _Block:
    text: str
    fence: str | None = None  # the opening fence line when the block is fenced code
    closing: str | None = None  # the closing fence line ("" when the fence was never closed)


def split_markdown(text: str, limit: int) -> list[str]:
    """Parts of at most `limit` characters, joined back they read as the original."""
    if limit < 40:
        raise ValueError("limit too small to hold a fenced code line")
    text = text.strip("\n")
    if not text.strip():
        return []
    return pack((piece for block in _blocks(text) for piece in _fit(block, limit)), limit, "\n\n")


def pack(pieces: Iterable[str], limit: int, sep: str) -> list[str]:
    """Join consecutive pieces with `sep` while the result stays within `limit` characters.

    Each piece must already fit; a new part starts where adding the next piece would not.
    """
    parts: list[str] = []
    current = ""
    for piece in pieces:
        joined = f"{current}{sep}{piece}" if current else piece
        if len(joined) <= limit:
            current = joined
        else:
            parts.append(current)
            current = piece
    if current:
        parts.append(current)
    return parts


def _blocks(text: str) -> list[_Block]:
    """Blank-line separated blocks; a fenced code block is one block even with blank lines inside."""
    blocks: list[_Block] = []
    lines = text.split("\n")
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            blocks.append(_Block("\n".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        opening = _FENCE.match(line)
        if opening:
            flush()
            marker = opening.group(2)
            body: list[str] = []
            i += 1
            closing = ""
            while i < len(lines):
                candidate = _FENCE.match(lines[i])
                if (
                    candidate
                    and candidate.group(2)[0] == marker[0]
                    and len(candidate.group(2)) >= len(marker)
                    and not candidate.group(3).strip()
                ):
                    closing = lines[i]
                    break
                body.append(lines[i])
                i += 1
            i += 1
            closing = closing or opening.group(1) + marker  # an unclosed fence is closed at its end
            blocks.append(_Block("\n".join([line, *body, closing]), fence=line, closing=closing))
            continue
        if line.strip():
            para.append(line)
        else:
            flush()
        i += 1
    flush()
    return blocks


def _fit(block: _Block, limit: int) -> list[str]:
    """The block whole when it fits, else pieces of at most `limit` characters."""
    if len(block.text) <= limit:
        return [block.text]
    if block.fence is not None:
        return _split_fence(block, limit)
    return _split_prose(block.text, limit)


def _split_fence(block: _Block, limit: int) -> list[str]:
    fence, closing = block.fence or "```", block.closing or "```"
    lines = block.text.split("\n")[1:]
    if lines and lines[-1] == closing:
        lines = lines[:-1]
    room = limit - len(fence) - len(closing) - 2
    pieces: list[str] = []
    body: list[str] = []
    size = 0
    for line in _hard_wrap(lines, room):
        extra = len(line) + (1 if body else 0)
        if body and size + extra > room:
            pieces.append("\n".join([fence, *body, closing]))
            body, size = [], 0
            extra = len(line)
        body.append(line)
        size += extra
    if body or not pieces:
        pieces.append("\n".join([fence, *body, closing]))
    return pieces


def _split_prose(text: str, limit: int) -> list[str]:
    return pack(_hard_wrap(text.split("\n"), limit, at_spaces=True), limit, "\n")


def _hard_wrap(lines: list[str], limit: int, *, at_spaces: bool = False) -> list[str]:
    """Lines longer than `limit` cut into pieces (at the last space when `at_spaces`)."""
    out: list[str] = []
    for line in lines:
        while len(line) > limit:
            if not at_spaces:  # code: wrap at the last space that fits, so no word that fits a line is cut in two
                space = line.rfind(" ", 1, limit + 1)
                cut = space if space > 0 else limit
                out.append(line[:cut])
                line = line[cut + 1 :] if space > 0 else line[cut:]
                continue
            cut = line.rfind(" ", limit // 2, limit)
            cut = cut if cut > 0 else limit
            out.append(line[:cut].rstrip())
            line = line[cut:].lstrip()
        out.append(line)
    return out
