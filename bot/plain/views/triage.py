"""A triage card as plain text, from its value (workers/messages/triage.py): the issue, each drafted action and
whether it waits for a click or how it was decided. What an MCP client is shown of the card its proposal made.
Text from outside (titles, authors, bodies, the proposer's words) keeps its words; its invisible characters are
shown as `<U+XXXX>`, as on the chat cards, so nothing hides in a terminal or a model's context either."""

from __future__ import annotations

from atlas.text import clip
from bot.plain import wording
from workers.approvals.visible_text import reveal
from workers.messages.triage import Duplicate, Labels, Related, Reply, TriageCard, TriageItem, Undo, words

EVIDENCE_CHARS = 600


def triage_text(card: TriageCard) -> str:
    """The whole card as it stands, one line per part; a reply's body quoted line by line, all of it."""
    lines = [_title(card)]
    if card.proposed:
        lines.append(reveal(card.proposed))
    if card.thresholds:
        lines.append(card.thresholds)
    if card.related:  # below the claim threshold: links with their evidence, no action
        lines.append(words.RELATED.format(links="; ".join(_related(r) for r in card.related)))
    for item in card.items:
        lines += [""] + _item(item)
    if card.superseded:
        lines += ["", words.SUPERSEDED.format(why=reveal(card.superseded))]
    if card.hidden:
        lines.append(words.HIDDEN.format(count=card.hidden))
    return "\n".join(lines)


def _title(card: TriageCard) -> str:
    if not card.title:  # a proposal just queued: the worker reads the issue before the card is posted
        return wording.TRIAGE_ISSUE.format(issue=card.issue)
    return words.CARD_TITLE.format(link=_link(card.url, f"#{card.issue} {card.title}"), author=reveal(card.author))


def _item(item: TriageItem) -> list[str]:
    if isinstance(item.shows, Undo):
        lines = [words.UNDO_OFFER.format(what=reveal(item.shows.what))]
        if item.pending_id is not None:
            lines.append(words.UNDO_WHEN)
    else:
        lines = [*_shows(item.shows), item.mode]
    if item.pending_id is not None:
        lines.append(wording.TRIAGE_WAITING)
    elif item.outcome is not None:
        lines.append(reveal(item.outcome))
    else:  # undecided, and no approval for it yet: the run is queued
        lines.append(wording.TRIAGE_QUEUED)
    return lines


def _shows(shows: Duplicate | Labels | Reply) -> list[str]:
    if isinstance(shows, Labels):
        return [words.LABELS.format(labels=", ".join(reveal(n) for n in shows.labels))]
    if isinstance(shows, Reply):
        body = reveal(shows.body).splitlines() or [""]
        return [words.REPLY, *(wording.TRIAGE_REPLY_LINE.format(line=line) for line in body)]
    lines = [words.DUPLICATE.format(link=_link(shows.url, f"#{shows.original} {shows.title}".strip()))]
    if shows.unread:
        lines.append(shows.unread)
    if shows.evidence is not None:
        lines.append(clip(reveal(shows.evidence), EVIDENCE_CHARS))
    if shows.also:
        lines.append(words.SIMILAR.format(links=", ".join(f"#{n}" for n in shows.also)))
    lines.append(shows.line)
    return lines


def _related(related: Related) -> str:
    evidence = clip(reveal(related.evidence), EVIDENCE_CHARS)
    return words.RELATED_ONE.format(
        link=_link(related.url, f"#{related.issue}"), score=related.score, evidence=evidence
    )


def _link(url: str | None, label: str) -> str:
    shown = reveal(label)
    return wording.TRIAGE_LINK.format(label=shown, url=url) if url else shown
