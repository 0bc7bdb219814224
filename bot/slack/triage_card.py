"""The triage card on Slack: one message per issue in ATLAS_TRIAGE_CHANNEL, updated in place.

The issue (number, title with invisible characters revealed, author, link), then each drafted action
with its own Approve and Reject (the value only the opaque pending id, so the ordinary approval click
handler decides it: place, approver policy, first click wins), then who decided what. The card's
channel is recorded on each approval before it is posted and its ts after (workers/approvals/place.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    PlainTextObject,
    RichTextBlock,
    RichTextPreformattedElement,
    SectionBlock,
)
from slack_sdk.models.blocks.block_elements import RichTextElementParts

from atlas.text import clip
from bot.slack import card_marker, triage_controls
from bot.slack.cards import APPROVE_ACTION, DENY_ACTION
from bot.slack.render import escape
from tools.tracker import Tracker
from workers.approvals.visible_text import hidden_count, reveal
from workers.new_issues import card_post, choices, wording
from workers.runs.state import RunState
from workers.runs.store import RunStore
from workers.runs.triage_record import TriageAction, TriageRecord

BLOCK_CHARS = 3000
EVIDENCE_CHARS = 600


def show(
    client: WebClient,
    create_client: WebClient,
    store: RunStore,
    run: RunState,
    tracker: Tracker | None,
    deliver: Callable[[Callable[[], None]], object] | None = None,
) -> None:
    """Post the card once (its ts saved with the run at once; a retry adopts a card an earlier try
    posted but never recorded, bot/slack/card_marker.py), else update it. `deliver` wraps only the talking to
    Slack (through an outage, bot/slack/delivery.py): a card that cannot be drawn fails as it did."""
    record = run.triage
    if record is None:
        return
    blocks = blocks_for(run, record, tracker, choices.current(store.conn, run))
    fallback = wording.CARD_FALLBACK.format(number=record.issue, count=sum(a.mode == "draft" for a in record.actions))
    channel = run.origin.channel or ""

    def edit(where: str, ts: str) -> None:
        client.chat_update(channel=where, ts=ts, text=fallback, blocks=blocks)

    def post() -> tuple[str, str]:
        reply = create_client.chat_postMessage(
            channel=channel,
            text=fallback,
            blocks=blocks,
            unfurl_links=False,
            unfurl_media=False,
            metadata=card_marker.marker(run.id),
        )
        return str(reply["channel"]), str(reply["ts"])

    def send() -> None:
        card_post.post_once(
            store,
            run,
            channel,
            find=lambda since: card_marker.find(client, channel, run.id, since),
            edit=edit,
            post=post,
        )

    (deliver or (lambda talk: talk()))(send)


def blocks_for(
    run: RunState, record: TriageRecord, tracker: Tracker | None, current: dict[str, dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The whole card as it stands; `current`: the pending calls' arguments as chosen so far (call id -> arguments)."""
    current = current or {}
    link = _link(record.url, f"#{record.issue} {record.title}")
    blocks: list[Any] = [
        SectionBlock(
            text=MarkdownTextObject(
                text="*"
                + wording.CARD_TITLE.format(link=link, author=f"`{escape(reveal(record.author or '?'))}`")
                + "*"
            )
        )
    ]
    shown = [record.title, record.author]
    proposed = wording.proposed(record)
    if proposed:  # an MCP client's words: data, shown with its invisible characters revealed
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=escape(reveal(proposed)))]))
        shown.append(proposed)
    for action, chosen, pid in choices.shown(run, record, current):
        if action.kind == "undo":  # workers/new_issues/undo.py: one button, for 7 days
            blocks += _undo(action, pid)
            continue
        blocks += _action(chosen, record, tracker, shown)
        blocks.append(
            ContextBlock(elements=[MarkdownTextObject(text=escape(wording.mode_line(action, record.suggestions)))])
        )
        if pid is not None:
            blocks.append(
                ActionsBlock(
                    block_id=f"atlas_triage_{action.kind}",
                    elements=[
                        *triage_controls.elements(action, chosen, pid),
                        ButtonElement(
                            text=PlainTextObject(text=wording.APPROVE),
                            action_id=APPROVE_ACTION,
                            value=pid,
                            style="primary",
                        ),
                        ButtonElement(
                            text=PlainTextObject(text=wording.REJECT), action_id=DENY_ACTION, value=pid, style="danger"
                        ),
                    ],
                )
            )
        elif action.status in wording.OUTCOME:
            line = wording.OUTCOME[action.status].format(
                who=escape(action.decider or "?"), result=escape(clip(action.result, 300))
            )
            blocks.append(ContextBlock(elements=[MarkdownTextObject(text=line)]))
    if record.superseded:
        blocks.append(
            ContextBlock(
                elements=[MarkdownTextObject(text=wording.SUPERSEDED.format(why=escape(reveal(record.superseded))))]
            )
        )
    hidden = hidden_count("\n".join(shown))
    if hidden:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=wording.HIDDEN.format(count=hidden))]))
    return [b.to_dict() for b in blocks]


def _action(action: TriageAction, record: TriageRecord, tracker: Tracker | None, shown: list[str]) -> list[Any]:
    args = action.arguments
    if action.kind == "duplicates":
        original = int(args["duplicate_of"])
        title, url, unread = wording.original(original, record.suggestions, tracker)
        shown.append(title)
        out: list[Any] = [
            SectionBlock(
                text=MarkdownTextObject(
                    text="*" + wording.DUPLICATE.format(link=_link(url, f"#{original} {title}".strip())) + "*"
                )
            )
        ]
        if unread:
            out.append(ContextBlock(elements=[MarkdownTextObject(text=escape(unread))]))
        dups = record.suggestions.get("duplicates") or []
        if dups:
            evidence = str(dups[0].get("evidence") or "")
            shown.append(evidence)
            out.append(
                ContextBlock(
                    elements=[
                        MarkdownTextObject(
                            text=escape(
                                clip(
                                    reveal(
                                        wording.DUPLICATE_EVIDENCE.format(
                                            score=float(dups[0].get("score") or 0), evidence=evidence
                                        )
                                    ),
                                    EVIDENCE_CHARS,
                                )
                            )
                        )
                    ]
                )
            )
        if len(dups) > 1:
            out.append(
                ContextBlock(
                    elements=[
                        MarkdownTextObject(
                            text=wording.SIMILAR.format(links=", ".join(f"#{int(d['id'])}" for d in dups[1:]))
                        )
                    ]
                )
            )
        line = wording.duplicate_line(original, record.suggestions)
        out.append(ContextBlock(elements=[MarkdownTextObject(text=escape(line))]))
        return out
    if action.kind == "labels":
        names = [str(x) for x in args.get("labels") or []]
        shown.extend(names)
        return [
            SectionBlock(
                text=MarkdownTextObject(
                    text="*" + wording.LABELS.format(labels=", ".join(f"`{escape(reveal(n))}`" for n in names)) + "*"
                )
            )
        ]
    body = str(args.get("body") or "")
    shown.append(body)
    out = [SectionBlock(text=MarkdownTextObject(text=f"*{wording.REPLY}*"))]
    text = reveal(body)
    for i in range(0, len(text), BLOCK_CHARS):  # all of it, preformatted: nothing in it renders as a mention or link
        out.append(
            RichTextBlock(
                elements=[
                    RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=text[i : i + BLOCK_CHARS])])
                ]
            )
        )
    out.append(ContextBlock(elements=[MarkdownTextObject(text=escape(wording.SIGNED.format(platform="Slack")))]))
    return out


def _undo(action: TriageAction, pid: str | None) -> list[Any]:
    """The Undo: what it takes back, and its button while offered (decided by the ordinary approval click)."""
    what = escape(reveal(wording.undo_what(action.arguments)))
    out: list[Any] = [SectionBlock(text=MarkdownTextObject(text="*" + wording.UNDO_OFFER.format(what=what) + "*"))]
    line = wording.outcome(action)
    if pid is not None:
        out.append(ContextBlock(elements=[MarkdownTextObject(text=escape(wording.UNDO_WHEN))]))
        out.append(
            ActionsBlock(
                block_id="atlas_triage_undo",
                elements=[
                    ButtonElement(
                        text=PlainTextObject(text=wording.UNDO), action_id=APPROVE_ACTION, value=pid, style="danger"
                    )
                ],
            )
        )
    elif line is not None:
        text = line.format(who=escape(action.decider or "?"), result=escape(clip(action.result, 300)))
        out.append(ContextBlock(elements=[MarkdownTextObject(text=text)]))
    return out


def _link(url: str | None, label: str) -> str:
    text = escape(reveal(label))
    return f"<{url}|{text}>" if url else text
