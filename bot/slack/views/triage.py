"""The triage card in Slack (from workers/messages/triage.py's `TriageCard`): the issue, each drafted action with its
controls and its own Approve and Reject while undecided (the value only the opaque pending id, so the ordinary
approval click handler decides it), then who decided what."""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    CheckboxesElement,
    ContextBlock,
    MarkdownTextObject,
    Option,
    PlainTextObject,
    RichTextBlock,
    RichTextPreformattedElement,
    SectionBlock,
)
from slack_sdk.models.blocks.block_elements import RichTextElementParts

from atlas.text import clip
from bot.slack import wording
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION
from bot.slack.views.markup import escape
from workers.approvals.visible_text import reveal
from workers.messages.triage import Duplicate, Labels, Related, Reply, TriageCard, TriageItem, Undo, words

BLOCK_CHARS = 3000
EVIDENCE_CHARS = 600
RELATED_CHARS = 200  # each related issue's evidence
PICK_PREFIX = "atlas_triage_pick:"  # + pending id: the labels' checkboxes
EDIT_ACTION = "atlas_triage_edit"  # value: the pending id
MAX_OPTIONS = 10  # Slack's limit for checkboxes


def fallback_text(card: TriageCard) -> str:
    return words.CARD_FALLBACK.format(number=card.issue, count=card.drafts)


def triage_blocks(card: TriageCard) -> list[dict[str, Any]]:
    """The whole card as it stands."""
    title = words.CARD_TITLE.format(
        link=_link(card.url, f"#{card.issue} {card.title}"), author=f"`{escape(reveal(card.author))}`"
    )
    blocks: list[Any] = [SectionBlock(text=MarkdownTextObject(text=f"*{title}*"))]
    if card.proposed:  # an MCP client's words: data, shown with its invisible characters revealed
        blocks.append(_context(escape(reveal(card.proposed))))
    if card.thresholds:
        blocks.append(_context(escape(card.thresholds)))
    if card.related:  # below the claim threshold: links with their evidence, no button
        blocks.append(_context(words.RELATED.format(links="; ".join(_related(r) for r in card.related))))
    for item in card.items:
        if isinstance(item.shows, Undo):  # workers/new_issues/undo.py: one button, for 7 days
            blocks += _undo(item, item.shows)
            continue
        blocks += _shows(item.shows)
        blocks.append(_context(escape(item.mode)))
        if item.pending_id is not None:
            blocks.append(
                ActionsBlock(
                    block_id=f"atlas_triage_{item.kind}",
                    elements=[
                        *controls(item, item.pending_id),
                        ButtonElement(
                            text=PlainTextObject(text=words.APPROVE),
                            action_id=APPROVE_ACTION,
                            value=item.pending_id,
                            style="primary",
                        ),
                        ButtonElement(
                            text=PlainTextObject(text=words.REJECT),
                            action_id=DENY_ACTION,
                            value=item.pending_id,
                            style="danger",
                        ),
                    ],
                )
            )
        elif item.outcome is not None:
            blocks.append(_context(escape(item.outcome)))
    if card.superseded:
        blocks.append(_context(words.SUPERSEDED.format(why=escape(reveal(card.superseded)))))
    if card.hidden:
        blocks.append(_context(words.HIDDEN.format(count=card.hidden)))
    return [b.to_dict() for b in blocks]


def controls(item: TriageItem, pending_id: str) -> list[Any]:
    """The controls of one pending action: the offered labels with the chosen ones ticked; Edit for a reply."""
    if isinstance(item.shows, Labels):
        options = {n: Option(value=n, text=PlainTextObject(text=reveal(n))) for n in item.offered[:MAX_OPTIONS]}
        ticked = [options[n] for n in item.chosen if n in options]
        return [
            CheckboxesElement(
                action_id=PICK_PREFIX + pending_id, options=list(options.values()), initial_options=ticked or None
            )
        ]
    if item.editable:
        return [
            ButtonElement(text=PlainTextObject(text=wording.EDIT_REPLY_BUTTON), action_id=EDIT_ACTION, value=pending_id)
        ]
    return []


def _shows(shows: Duplicate | Labels | Reply | Undo) -> list[Any]:
    if isinstance(shows, Duplicate):
        return _duplicate(shows)
    if isinstance(shows, Labels):
        names = ", ".join(f"`{escape(reveal(n))}`" for n in shows.labels)
        return [SectionBlock(text=MarkdownTextObject(text="*" + words.LABELS.format(labels=names) + "*"))]
    body = reveal(shows.body if isinstance(shows, Reply) else "")
    out: list[Any] = [SectionBlock(text=MarkdownTextObject(text=f"*{words.REPLY}*"))]
    for i in range(0, len(body), BLOCK_CHARS):  # all of it, preformatted: nothing in it renders as a mention or link
        piece = RichTextElementParts.Text(text=body[i : i + BLOCK_CHARS])
        out.append(RichTextBlock(elements=[RichTextPreformattedElement(elements=[piece])]))
    out.append(_context(escape(words.SIGNED.format(platform="Slack"))))
    return out


def _duplicate(dup: Duplicate) -> list[Any]:
    link = _link(dup.url, f"#{dup.original} {dup.title}".strip())
    out: list[Any] = [SectionBlock(text=MarkdownTextObject(text="*" + words.DUPLICATE.format(link=link) + "*"))]
    if dup.unread:
        out.append(_context(escape(dup.unread)))
    if dup.evidence is not None:
        out.append(_context(escape(clip(reveal(dup.evidence), EVIDENCE_CHARS))))
    if dup.also:
        out.append(_context(words.SIMILAR.format(links=", ".join(f"#{n}" for n in dup.also))))
    out.append(_context(escape(dup.line)))
    return out


def _related(related: Related) -> str:
    evidence = escape(clip(reveal(related.evidence), RELATED_CHARS))
    return words.RELATED_ONE.format(
        link=_link(related.url, f"#{related.issue}"), score=related.score, evidence=evidence
    )


def _undo(item: TriageItem, undo: Undo) -> list[Any]:
    """The Undo: what it takes back, and its button while offered (decided by the ordinary approval click)."""
    what = escape(reveal(undo.what))
    out: list[Any] = [SectionBlock(text=MarkdownTextObject(text="*" + words.UNDO_OFFER.format(what=what) + "*"))]
    if item.pending_id is not None:
        out.append(_context(escape(words.UNDO_WHEN)))
        button = ButtonElement(
            text=PlainTextObject(text=words.UNDO), action_id=APPROVE_ACTION, value=item.pending_id, style="danger"
        )
        out.append(ActionsBlock(block_id="atlas_triage_undo", elements=[button]))
    elif item.outcome is not None:
        out.append(_context(escape(item.outcome)))
    return out


def _context(text: str) -> ContextBlock:
    return ContextBlock(elements=[MarkdownTextObject(text=text)])


def _link(url: str | None, label: str) -> str:
    text = escape(reveal(label))
    return f"<{url}|{text}>" if url else text
