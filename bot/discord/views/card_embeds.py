"""An approval card's comment or new issue's body, whole, as embeds under the card's content: a comment may hold
4,000 characters, a message's content only 2,000. Mentions in embeds never ping."""

from __future__ import annotations

from typing import Any

from bot.discord.views.limits import EMBED_DESCRIPTION_LIMIT, EMBEDS_PER_MESSAGE, EMBEDS_TOTAL_LIMIT
from bot.discord.views.markup import FENCE_CLOSE, FENCE_OPEN, fenced
from workers.approvals.visible_text import reveal

_FENCE_CHARS = len(FENCE_OPEN) + len(FENCE_CLOSE)


def card_embeds(name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """A comment card's comment, whole (hidden characters shown as `<U+…>`), as embeds under the card's
    content: a comment may hold 4,000 characters, the content only 2,000. Mentions in embeds never ping."""
    if name not in ("post_comment", "create_issue"):
        return []
    return [{"description": fenced(piece)} for piece in comment_pieces(str(arguments.get("body") or ""))[0]]


def comment_pieces(body: str) -> tuple[list[str], int]:
    """The revealed comment in pieces whose code blocks fit Discord's embed limits (at most 10 embeds), and
    how many characters did not fit (only a comment padded with thousands of hidden characters)."""
    shown = reveal(body) or " "
    pieces: list[str] = []
    budget, start = EMBEDS_TOTAL_LIMIT, 0
    while start < len(shown) and len(pieces) < EMBEDS_PER_MESSAGE:
        room = min(EMBED_DESCRIPTION_LIMIT, budget)
        piece = shown[start : start + room - _FENCE_CHARS]
        while piece and len(fenced(piece)) > room:  # broken fences inside take a character each
            piece = piece[: len(piece) - max(1, len(fenced(piece)) - room)]
        if not piece:
            break
        pieces.append(piece)
        budget -= len(fenced(piece))
        start += len(piece)
    return pieces, len(shown) - start
