"""The triage card on Discord, from its value (workers/messages/triage.py): the issue, each drafted action with its
own Approve and Reject (custom ids carry only the opaque pending id, decided by the ordinary click handler) and its
controls, who decided what. A drafted reply is shown whole in embeds (past the content's 2,000 characters).
Every text from outside (titles, authors, bodies, evidence, names) is escaped, its invisible characters revealed.
"""

from __future__ import annotations

from typing import Any, assert_never

from atlas.text import clip
from bot.discord.views.card_embeds import card_embeds
from bot.discord.views.components import APPROVE_PREFIX, BUTTON_DANGER, BUTTON_SUCCESS, DENY_PREFIX
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import escape
from bot.discord.views.triage_controls import components
from workers.approvals.visible_text import reveal
from workers.messages.triage import Duplicate, Labels, Related, Reply, TriageCard, TriageItem, Undo, words

EVIDENCE_CHARS = 400
RELATED_CHARS = 200  # each related issue's evidence
MAX_ROWS = 5  # Discord: action rows per message


def triage_payload(card: TriageCard) -> dict[str, Any]:
    """The whole card as it stands: content, the reply's embeds, the controls' rows (never a ping)."""
    title = escape(reveal(f"#{card.issue} {card.title}"))
    link = f"[{title}](<{card.url}>)" if card.url else title
    lines = ["**" + words.CARD_TITLE.format(link=link, author=f"`{escape(reveal(card.author))}`") + "**"]
    if card.proposed:  # an MCP client's words: data, shown with its invisible characters revealed
        lines.append(escape(reveal(card.proposed)))
    embeds: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    if card.related:  # below the claim threshold: links with their evidence, no button
        lines.append(words.RELATED.format(links="; ".join(_related(r) for r in card.related)))
    for item in card.items:
        if isinstance(item.shows, Undo):  # workers/new_issues/undo.py: one button, for 7 days
            lines.append(_undo(item, item.shows, rows))
            continue
        lines.append(_describe(item.shows, embeds))
        lines.append(escape(item.mode))
        if item.pending_id is not None:
            controls = components(item, item.pending_id)
            rows += controls.rows
            decide = [_button(BUTTON_SUCCESS, f"{words.APPROVE}: {item.kind}", APPROVE_PREFIX + item.pending_id)]
            decide.append(_button(BUTTON_DANGER, f"{words.REJECT}: {item.kind}", DENY_PREFIX + item.pending_id))
            rows.append({"type": 1, "components": [*decide, *controls.buttons]})
        elif item.outcome is not None:
            lines.append("> " + _outcome(item))
    if card.superseded:
        lines.append(words.SUPERSEDED.format(why=escape(reveal(card.superseded))))
    if card.thresholds:
        lines.append(escape(card.thresholds))
    if card.hidden:
        lines.append(words.HIDDEN.format(count=card.hidden))
    return {
        "content": clip("\n".join(lines), CONTENT_LIMIT),
        "embeds": embeds,
        "components": rows[:MAX_ROWS],
        "allowed_mentions": {"parse": []},
    }


def _related(related: Related) -> str:
    label = escape(f"#{related.issue}")
    link = f"[{label}](<{related.url}>)" if related.url else label
    evidence = escape(clip(reveal(related.evidence), RELATED_CHARS))
    return words.RELATED_ONE.format(link=link, score=related.score, evidence=evidence)


def _button(style: int, label: str, custom_id: str) -> dict[str, Any]:
    return {"type": 2, "style": style, "label": label, "custom_id": custom_id}


def _outcome(item: TriageItem) -> str:
    """Who decided what and the result: Atlas's words as they are, the untrusted parts escaped."""
    parts = item.outcome_parts
    if parts is None:
        return escape(item.outcome or "")
    return parts.words.format(who=escape(parts.who), result=escape(parts.result))


def _undo(item: TriageItem, undo: Undo, rows: list[dict[str, Any]]) -> str:
    """The Undo: what it takes back, and its button while offered (decided by the ordinary approval click)."""
    out = ["**" + words.UNDO_OFFER.format(what=escape(reveal(undo.what))) + "**"]
    if item.pending_id is not None:
        out.append(escape(words.UNDO_WHEN))
        rows.append({"type": 1, "components": [_button(BUTTON_DANGER, words.UNDO, APPROVE_PREFIX + item.pending_id)]})
    elif item.outcome is not None:
        out.append("> " + _outcome(item))
    return "\n".join(out)


def _describe(shows: Duplicate | Labels | Reply | Undo, embeds: list[dict[str, Any]]) -> str:
    match shows:
        case Duplicate():
            label = escape(reveal(f"#{shows.original} {shows.title}".strip()))
            out = ["**" + words.DUPLICATE.format(link=f"[{label}](<{shows.url}>)" if shows.url else label) + "**"]
            if shows.unread:
                out.append(escape(shows.unread))
            if shows.evidence is not None:
                out.append(escape(clip(reveal(shows.evidence), EVIDENCE_CHARS)))
            out.append(escape(shows.line))
            return "\n".join(out)
        case Labels():
            return "**" + words.LABELS.format(labels=", ".join(f"`{escape(reveal(n))}`" for n in shows.labels)) + "**"
        case Reply():
            pieces = card_embeds("post_comment", {"body": shows.body})  # a code block: no link, no mention in it
            pieces[0]["title"] = words.REPLY
            pieces[-1]["footer"] = {"text": words.SIGNED.format(platform="Discord")}
            embeds.extend(pieces)
            return f"**{words.REPLY}** (the full text below)"
        case Undo():
            return ""  # drawn by _undo
        case _:
            assert_never(shows)
