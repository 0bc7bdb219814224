"""Approval cards in the run's Slack thread: one per pending side-effect call, edited as it is decided.

A card shows what would happen, rendered for a human: the issue (number, title, link, state), the
labels as chips, a comment's exact text (preformatted, so nothing in it renders as a mention or a
link), how an issue would be closed, the model's stated reason (plain text: it may quote untrusted
issue text), who asked, and Approve / Deny buttons whose value is only the opaque pending id.
The descriptive part is stored with the approval record, so later edits (decided, expired, done)
show the same content the approver saw.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

import redis
from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError
from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    MarkdownTextObject,
    PlainTextObject,
    RichTextBlock,
    RichTextPreformattedElement,
    RichTextQuoteElement,
    RichTextSectionElement,
    SectionBlock,
)
from slack_sdk.models.blocks.block_elements import RichTextElementParts

from atlas.text import clip, text_of
from bot.slack import card_marker, wording
from bot.slack.progress import channel_of
from bot.slack.render import escape
from tools.errors import TrackerUnavailable
from tools.tracker import IssueRef, Tracker
from workers.approvals import records as approvals
from workers.approvals.card_once import ApprovalCard
from workers.approvals.records import Approval
from workers.approvals.visible_text import hidden_count, reveal
from workers.runs.post_once import post_once
from workers.runs.state import PendingCall, RunState

log = logging.getLogger("atlas.approval_cards")

APPROVE_ACTION = "atlas_approval_approve"
DENY_ACTION = "atlas_approval_deny"
REASON_CHARS = 1500
BLOCK_CHARS = 3000  # Slack's limit on a section's text; a comment longer than this takes several blocks
RESULT_CHARS = 500
_CODE = RichTextElementParts.TextStyle(code=True)


@dataclass(frozen=True)
class CardView:
    """Everything a card shows about one pending call."""

    pending_id: str
    name: str
    arguments: dict[str, Any]
    issue: IssueRef | None
    duplicate: IssueRef | None
    reason: str
    asker: str | None
    expires_at: float
    read: tuple[str, ...] = ()  # untrusted text the run read before proposing this: "#237", search results
    drafted: str = ""  # a "File as GitHub issue" draft: "model", "thread" or "fallback" (FilingRecord.drafted)


def view(run: RunState, call: PendingCall, tracker: Tracker | None, expires_at: float) -> CardView:
    """Look up what the card needs; a tracker that fails only leaves the issue title out."""
    try:
        arguments = json.loads(call.arguments or "{}")
    except ValueError:
        arguments = {}
    arguments = arguments if isinstance(arguments, dict) else {}
    issue = duplicate = None
    if tracker is not None:
        try:
            if isinstance(arguments.get("issue_id"), int):
                issue = tracker.issue(arguments["issue_id"])
            if isinstance(arguments.get("duplicate_of"), int):
                duplicate = tracker.issue(arguments["duplicate_of"])
        except TrackerUnavailable:
            log.warning("run %s: tracker unavailable while rendering a card", run.id)
    return CardView(call.pending_id, call.name, arguments, issue, duplicate, stated_reason(run, call.call_id),
                    run.origin.user, expires_at, untrusted_reads(run, call.call_id), (run.filing.drafted if run.filing else None) or "")


def untrusted_reads(run: RunState, call_id: str) -> tuple[str, ...]:
    """Issue text the run read before this call (issues opened, then search results), in reading order."""
    read: list[str] = []
    for item in run.items:
        if item.get("type") != "function_call":
            continue
        if item.get("call_id") == call_id:
            break
        if item.get("name") == "get_issue":
            try:
                number = json.loads(item.get("arguments") or "{}").get("issue_id")
            except (ValueError, AttributeError):
                continue
            label = f"#{number}" if isinstance(number, int) and not isinstance(number, bool) else None
        else:
            label = wording.APPROVAL_PROVENANCE_SEARCH if item.get("name") == "search_issues" else None
        if label and label not in read:
            read.append(label)
    return tuple(read)


def stated_reason(run: RunState, call_id: str) -> str:
    """The assistant text the model wrote in the same reply, before this call (empty if none)."""
    index = next((i for i, item in enumerate(run.items) if item.get("type") == "function_call" and item.get("call_id") == call_id), None)
    if index is None:
        return ""
    texts: list[str] = []
    for item in reversed(run.items[:index]):
        kind = item.get("type")
        if kind in ("function_call", "reasoning"):
            continue
        if kind == "message" and item.get("role") == "assistant":
            texts.append(text_of(item.get("content"), sep=""))
            continue
        break
    return "\n".join(t for t in reversed(texts) if t).strip()


def describe(card: CardView) -> list[dict[str, Any]]:
    """The card's descriptive blocks (everything but the buttons), as validated dicts."""
    title = wording.APPROVAL_TITLE.get(card.name) or wording.APPROVAL_TITLE_OTHER.format(name=escape(card.name[:64]))
    blocks: list[Any] = [SectionBlock(text=MarkdownTextObject(text=f"*{title}*"))]
    if card.drafted in wording.APPROVAL_DRAFTED_BY:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=wording.APPROVAL_DRAFTED_BY[card.drafted])]))
    number = card.arguments.get("issue_id")
    if card.issue is not None:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_ISSUE.format(link=_link(card.issue), state=card.issue.state))))
    elif number is not None:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_ISSUE.format(link=f"#{escape(str(number))}", state="?"))))
    if card.name == "add_labels":
        blocks.append(_chips(wording.APPROVAL_LABELS, [reveal(str(x)) for x in card.arguments.get("labels") or []]))
        if card.issue is not None:
            current = ", ".join(f"`{escape(reveal(x))}`" for x in card.issue.labels) or "none"
            blocks.append(ContextBlock(elements=[MarkdownTextObject(text=wording.APPROVAL_CURRENT_LABELS.format(labels=current))]))
    elif card.name == "post_comment":
        blocks.append(SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_COMMENT)))
        body = reveal(str(card.arguments.get("body") or ""))
        for part in _parts(body or " ", BLOCK_CHARS):  # all of it, in blocks Slack takes
            blocks.append(RichTextBlock(elements=[RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=part)])]))
    elif card.name == "create_issue":
        blocks.extend(_new_issue(card.arguments))
    elif card.name == "close_issue":
        if card.arguments.get("reason") == "duplicate":
            original = _link(card.duplicate) if card.duplicate else f"#{escape(str(card.arguments.get('duplicate_of')))}"
            line = wording.APPROVAL_CLOSE_DUPLICATE.format(link=original)
        else:
            line = wording.APPROVAL_CLOSE.format(reason=escape(reveal(str(card.arguments.get("reason", ""))).replace("_", " ")))
        blocks.append(SectionBlock(text=MarkdownTextObject(text=line)))
    else:
        raw = reveal(json.dumps(card.arguments, ensure_ascii=False))
        for part in _parts(raw, BLOCK_CHARS):
            blocks.append(RichTextBlock(elements=[RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=part)])]))
    if card.reason:
        blocks.append(RichTextBlock(elements=[
            RichTextSectionElement(elements=[RichTextElementParts.Text(text=wording.APPROVAL_REASON, style={"italic": True})]),
            RichTextQuoteElement(elements=[RichTextElementParts.Text(text=clip(reveal(card.reason), REASON_CHARS))]),
        ]))
    if card.read:
        sources = ", ".join(card.read[:-1]) + (" and " if len(card.read) > 1 else "") + card.read[-1]
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=wording.APPROVAL_PROVENANCE.format(sources=escape(sources)))]))
    hidden = hidden_count(shown_text(card))
    if hidden:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=wording.APPROVAL_HIDDEN.format(count=hidden, s="" if hidden == 1 else "s"))]))
    asker = wording.APPROVAL_ASKED_BY.format(user=card.asker or "unknown", when=slack_date(card.expires_at))
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=asker)]))
    return [b.to_dict() for b in blocks]


def _new_issue(arguments: dict[str, Any]) -> list[Any]:
    """A new issue's title, labels and whole body (preformatted: nothing in it renders as a mention or link)."""
    blocks: list[Any] = [SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_NEW_TITLE.format(
        title=escape(reveal(str(arguments.get("title") or ""))))[:BLOCK_CHARS]))]
    if arguments.get("labels"):
        blocks.append(_chips(wording.APPROVAL_NEW_LABELS, [reveal(str(x)) for x in arguments.get("labels") or []]))
    blocks.append(SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_NEW_BODY)))
    for part in _parts(reveal(str(arguments.get("body") or "")) or " ", BLOCK_CHARS):
        blocks.append(RichTextBlock(elements=[RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=part)])]))
    return blocks


def shown_text(card: CardView) -> str:
    """All the untrusted text a card shows (arguments, the model's reason, issue titles and labels): what
    the hidden-character warning counts, on every platform."""
    issues = [i for i in (card.issue, card.duplicate) if i is not None]
    parts = [*_strings(card.arguments), card.reason, card.name, *(i.title for i in issues), *(label for i in issues for label in i.labels)]
    return "\n".join(parts)


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys included (json.dumps would escape control characters)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _parts(text: str, size: int) -> list[str]:
    """`text` in consecutive pieces of at most `size` characters (nothing dropped)."""
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def buttons(pending_id: str) -> dict[str, Any]:
    """Approve / Deny; the value is only the opaque pending id."""
    confirm = ConfirmObject(title=wording.APPROVAL_CONFIRM_TITLE, text=wording.APPROVAL_CONFIRM_TEXT,
                            confirm=wording.APPROVAL_CONFIRM_YES, deny=wording.APPROVAL_CONFIRM_NO)
    return ActionsBlock(block_id="atlas_approval", elements=[
        ButtonElement(text=PlainTextObject(text=wording.APPROVAL_APPROVE), action_id=APPROVE_ACTION, value=pending_id,
                      style="primary", confirm=confirm),
        ButtonElement(text=PlainTextObject(text=wording.APPROVAL_DENY), action_id=DENY_ACTION, value=pending_id, style="danger"),
    ]).to_dict()


def fallback_text(name: str, arguments: dict[str, Any]) -> str:
    if "issue_id" not in arguments:  # a new issue has no number yet
        return wording.APPROVAL_FALLBACK_NEW.format(name=name)
    return wording.APPROVAL_FALLBACK_TEXT.format(name=name, issue=arguments.get("issue_id", "?"))


def post(client: WebClient, run: RunState, pending: list[Any], *, conn: redis.Redis, tracker: Tracker | None) -> list[str]:
    """Post one card per pending call in the run's thread (skipping calls that already have one)."""
    posted: list[str] = []
    for raw in pending:
        call = raw if isinstance(raw, PendingCall) else PendingCall.model_validate(raw)
        record = approvals.load(conn, call.pending_id)
        if record is None or record.card_ts or record.decided:
            continue  # not opened (nothing to decide), already on Slack, or decided on a card posted unrecorded
        posted.append(_post_one(client, conn, run, view(run, call, tracker, record.expires_at)))
    return posted


def _post_one(client: WebClient, conn: redis.Redis, run: RunState, card: CardView) -> str:
    """One call's card in the run's thread, posted once (workers/approvals/card_once.py): a retried job
    adopts the card a killed worker posted but never recorded, found in the thread by its marker."""
    described = describe(card)
    channel, thread = channel_of(run), run.origin.thread_ts or run.origin.message_ts
    mark = card_marker.approval_marker(card.pending_id)

    def send() -> tuple[str, str]:
        reply = client.chat_postMessage(channel=channel, thread_ts=thread, text=fallback_text(card.name, card.arguments),
                                        blocks=[*described, buttons(card.pending_id)], metadata=mark)
        return str(reply["channel"]), str(reply["ts"])

    # Only a thread the app may not read (no channels:history) makes the retry post another card; the
    # place check then leaves only the recorded copy's buttons live, and a click on the first records it.
    slot = ApprovalCard(conn, card.pending_id, channel, json.dumps(described))
    return post_once(slot, channel, post=send, find=lambda since: card_marker.find_marked(client, channel, mark, since, thread))[1]


def outcome_line(approval: Approval) -> str:
    """Who decided what, and when (in each reader's time zone)."""
    template = wording.APPROVAL_OUTCOME.get(approval.status)
    if template is None:
        return ""
    return template.format(user=approval.decider or "?", when=slack_date(approval.decided_at or time.time()))


def update(client: WebClient, approval: Approval, *, result: str | None = None, ok: bool = True, in_doubt: bool = False,
           shown: list[dict[str, Any]] | None = None, channel: str | None = None, ts: str | None = None) -> bool:
    """Edit a card: the content it showed, the decision (who, what, when), and the result if any. No buttons."""
    channel, ts = channel or approval.channel, ts or approval.card_ts
    if not channel or not ts:
        return False
    blocks = json.loads(approval.card_blocks) if approval.card_blocks else [b for b in (shown or []) if b.get("type") != "actions"]
    lines = [outcome_line(approval)]
    if in_doubt:
        lines.append(wording.APPROVAL_RESULT_IN_DOUBT)
    elif result is not None:
        template = wording.APPROVAL_RESULT_DONE if ok else wording.APPROVAL_RESULT_FAILED
        lines.append(template.format(result=escape(clip(result, RESULT_CHARS))))
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text="\n".join(x for x in lines if x))]).to_dict())
    try:
        client.chat_update(channel=channel, ts=ts, text=_plain(lines), blocks=blocks)
        return True
    except SlackClientError as exc:
        log.warning("could not update approval card %s: %s", approval.pending_id, type(exc).__name__)
        return False


def tell_in_doubt(client: WebClient, run: RunState, approval: Approval, url: str | None = None) -> None:
    """Say in the thread that an approved action may or may not have happened, for a human to check
    (at `url`, the issue's page on the tracker, when it has one)."""
    issue = approval.issue or "?"
    text = wording.APPROVAL_IN_DOUBT_THREAD.format(name=approval.name, issue=issue, user=approval.decider or run.origin.user or "here",
                                                   link=f" (<{url}|#{issue}>)" if url else "")
    client.chat_postMessage(channel=channel_of(run), thread_ts=run.origin.thread_ts or run.origin.message_ts, text=text)


def slack_date(at: float) -> str:
    """A Slack date token: shown in the reader's time zone, with a UTC fallback."""
    fallback = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))
    return f"<!date^{int(at)}^{{date_short_pretty}} at {{time}}|{fallback}>"


def _chips(label: str, names: list[str]) -> RichTextBlock:
    parts: list[Any] = [RichTextElementParts.Text(text=label + " ")]
    for i, name in enumerate(names):
        parts.append(RichTextElementParts.Text(text=name, style=_CODE))
        if i < len(names) - 1:
            parts.append(RichTextElementParts.Text(text=" "))
    return RichTextBlock(elements=[RichTextSectionElement(elements=parts)])


def _link(issue: IssueRef) -> str:
    text = escape(reveal(f"#{issue.number} {issue.title}"))
    return f"<{issue.url}|{text}>" if issue.url else text


def _plain(lines: list[str]) -> str:
    return " ".join(x for x in lines if x)[:300]
