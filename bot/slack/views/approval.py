"""An approval card in Slack (from workers/messages/approval.py): what the approver sees of one pending call.

The issue (number, title, link, state), the labels as chips, a comment's exact text (preformatted, so nothing in it
renders as a mention or a link), how an issue would be closed, the model's stated reason (plain text: it may quote
untrusted issue text), who asked, and Approve / Deny buttons whose value is only the opaque pending id; once decided,
the same content with who decided what and the result, without buttons.
"""

from __future__ import annotations

import json
import re
from typing import Any

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

from atlas.text import clip
from bot.slack import wording
from bot.slack.views.markup import escape, slack_date
from workers.approvals.visible_text import hidden_count, reveal
from workers.messages.approval import CardView, Decision, IssueRef, shown_text
from workers.messages.notices import InDoubtNotice

APPROVE_ACTION = "atlas_approval_approve"
DENY_ACTION = "atlas_approval_deny"
REASON_CHARS = 1500
BLOCK_CHARS = 3000  # Slack's limit on a section's text; a comment longer than this takes several blocks
RESULT_CHARS = 500
_CODE = RichTextElementParts.TextStyle(code=True)


def _filing_notes(card: CardView) -> list[str]:
    """A filing draft's lines: who drafted it, its redactions, the people whose words it left out (a user id as a
    mention, else text)."""
    notes = [wording.APPROVAL_DRAFTED_BY[card.drafted]] if card.drafted in wording.APPROVAL_DRAFTED_BY else []
    if card.redacted:
        notes.append(wording.APPROVAL_REDACTED.format(count=card.redacted))
    if card.left_out:
        who = ", ".join(f"<@{w}>" if re.fullmatch(r"[UW][A-Z0-9]{2,20}", w) else escape(w) for w in card.left_out[:10])
        notes.append(wording.APPROVAL_LEFT_OUT.format(who=who))
    return notes


def _similar(card: CardView) -> list[Any]:
    """A draft's open issues that may be the same (untrusted titles and evidence: escaped, invisible characters
    shown)."""
    if not card.similar:
        return []
    lines = [wording.APPROVAL_SIMILAR] + [
        wording.APPROVAL_SIMILAR_ONE.format(
            link=_similar_link(s),
            score=float(s.get("score") or 0.0),
            why=escape(clip(reveal(str(s.get("evidence") or "")), 300)),
        )
        for s in card.similar
    ]
    return [ContextBlock(elements=[MarkdownTextObject(text="\n".join(lines))])]


def _similar_link(found: dict[str, Any]) -> str:
    label = escape(reveal(f"#{int(found.get('id') or 0)} {found.get('title') or ''}".strip()))[:200]
    url = str(found.get("url") or "")
    return f"<{url}|{label}>" if url.startswith("https://") and "|" not in url and ">" not in url else label


def describe(card: CardView) -> list[dict[str, Any]]:
    """The card's descriptive blocks (everything but the buttons), as validated dicts."""
    title = wording.APPROVAL_TITLE.get(card.name) or wording.APPROVAL_TITLE_OTHER.format(
        name=escape(reveal(card.name[:64]))
    )
    blocks: list[Any] = [SectionBlock(text=MarkdownTextObject(text=f"*{title}*"))]
    for line in _filing_notes(card):
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=line)]))
    blocks += _similar(card)
    number, repo = card.arguments.get("issue_id"), f"`{escape(card.repo)}` " if card.repo else ""  # several repos
    if card.issue is not None:
        blocks.append(
            SectionBlock(
                text=MarkdownTextObject(
                    text=wording.APPROVAL_ISSUE.format(link=repo + _link(card.issue), state=card.issue.state)
                )
            )
        )
    elif number is not None:
        blocks.append(
            SectionBlock(
                text=MarkdownTextObject(
                    text=wording.APPROVAL_ISSUE.format(link=f"{repo}#{escape(str(number))}", state="?")
                )
            )
        )
    if card.name == "add_labels":
        blocks.append(_chips(wording.APPROVAL_LABELS, [reveal(str(x)) for x in card.arguments.get("labels") or []]))
        if card.issue is not None:
            current = ", ".join(f"`{escape(reveal(x))}`" for x in card.issue.labels) or "none"
            blocks.append(
                ContextBlock(elements=[MarkdownTextObject(text=wording.APPROVAL_CURRENT_LABELS.format(labels=current))])
            )
    elif card.name == "post_comment":
        blocks.append(SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_COMMENT)))
        body = reveal(str(card.arguments.get("body") or ""))
        for part in _parts(body or " ", BLOCK_CHARS):  # all of it, in blocks Slack takes
            blocks.append(
                RichTextBlock(elements=[RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=part)])])
            )
    elif card.name == "create_issue":
        blocks.extend(_new_issue(card.arguments, card.repo))
    elif card.name == "close_issue":
        if card.arguments.get("reason") == "duplicate":
            original = (
                _link(card.duplicate) if card.duplicate else f"#{escape(str(card.arguments.get('duplicate_of')))}"
            )
            line = wording.APPROVAL_CLOSE_DUPLICATE.format(link=original)
        else:
            line = wording.APPROVAL_CLOSE.format(
                reason=escape(reveal(str(card.arguments.get("reason", ""))).replace("_", " "))
            )
        blocks.append(SectionBlock(text=MarkdownTextObject(text=line)))
    else:
        raw = reveal(json.dumps(card.arguments, ensure_ascii=False))
        for part in _parts(raw, BLOCK_CHARS):
            blocks.append(
                RichTextBlock(elements=[RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=part)])])
            )
    if card.reason:
        blocks.append(
            RichTextBlock(
                elements=[
                    RichTextSectionElement(
                        elements=[RichTextElementParts.Text(text=wording.APPROVAL_REASON, style={"italic": True})]
                    ),
                    RichTextQuoteElement(
                        elements=[RichTextElementParts.Text(text=clip(reveal(card.reason), REASON_CHARS))]
                    ),
                ]
            )
        )
    if card.read:
        sources = ", ".join(card.read[:-1]) + (" and " if len(card.read) > 1 else "") + card.read[-1]
        blocks.append(
            ContextBlock(
                elements=[MarkdownTextObject(text=wording.APPROVAL_PROVENANCE.format(sources=escape(sources)))]
            )
        )
    hidden = hidden_count(shown_text(card))
    if hidden:
        blocks.append(
            ContextBlock(
                elements=[
                    MarkdownTextObject(text=wording.APPROVAL_HIDDEN.format(count=hidden, s="" if hidden == 1 else "s"))
                ]
            )
        )
    asker = wording.APPROVAL_ASKED_BY.format(user=card.asker or "unknown", when=slack_date(card.expires_at))
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=asker)]))
    return [b.to_dict() for b in blocks]


def _new_issue(arguments: dict[str, Any], repo: str | None) -> list[Any]:
    """A new issue's repository (several served), title, labels and whole body (preformatted: nothing in it renders
    as a mention or link)."""
    where = wording.APPROVAL_NEW_REPO.format(repo=f"`{escape(repo)}`") if repo else None
    blocks: list[Any] = [SectionBlock(text=MarkdownTextObject(text=where))] if where else []
    blocks += [
        SectionBlock(
            text=MarkdownTextObject(
                text=wording.APPROVAL_NEW_TITLE.format(title=escape(reveal(str(arguments.get("title") or ""))))[
                    :BLOCK_CHARS
                ]
            )
        )
    ]
    if arguments.get("labels"):
        blocks.append(_chips(wording.APPROVAL_NEW_LABELS, [reveal(str(x)) for x in arguments.get("labels") or []]))
    blocks.append(SectionBlock(text=MarkdownTextObject(text=wording.APPROVAL_NEW_BODY)))
    for part in _parts(reveal(str(arguments.get("body") or "")) or " ", BLOCK_CHARS):
        blocks.append(
            RichTextBlock(elements=[RichTextPreformattedElement(elements=[RichTextElementParts.Text(text=part)])])
        )
    return blocks


def _parts(text: str, size: int) -> list[str]:
    """`text` in consecutive pieces of at most `size` characters (nothing dropped)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def buttons(pending_id: str) -> dict[str, Any]:
    """Approve / Deny; the value is only the opaque pending id."""
    confirm = ConfirmObject(
        title=wording.APPROVAL_CONFIRM_TITLE,
        text=wording.APPROVAL_CONFIRM_TEXT,
        confirm=wording.APPROVAL_CONFIRM_YES,
        deny=wording.APPROVAL_CONFIRM_NO,
    )
    return ActionsBlock(
        block_id="atlas_approval",
        elements=[
            ButtonElement(
                text=PlainTextObject(text=wording.APPROVAL_APPROVE),
                action_id=APPROVE_ACTION,
                value=pending_id,
                style="primary",
                confirm=confirm,
            ),
            ButtonElement(
                text=PlainTextObject(text=wording.APPROVAL_DENY),
                action_id=DENY_ACTION,
                value=pending_id,
                style="danger",
            ),
        ],
    ).to_dict()


def fallback_text(name: str, arguments: dict[str, Any]) -> str:
    if "issue_id" not in arguments:  # a new issue has no number yet
        return wording.APPROVAL_FALLBACK_NEW.format(name=name)
    return wording.APPROVAL_FALLBACK_TEXT.format(name=name, issue=arguments.get("issue_id", "?"))


def outcome_line(decision: Decision) -> str:
    """Who decided what, and when (in each reader's time zone)."""
    template = wording.APPROVAL_OUTCOME.get(decision.status)
    if template is None:
        return ""
    return template.format(user=decision.decider or "?", when=slack_date(decision.decided_at))


def decided(shown: list[dict[str, Any]], decision: Decision) -> tuple[str, list[dict[str, Any]]]:
    """A decided card's text and blocks: what it showed (`shown`, its buttons dropped), then the decision and the
    result, if any."""
    blocks = [b for b in shown if b.get("type") != "actions"]
    lines = [outcome_line(decision)]
    if decision.in_doubt:
        lines.append(wording.APPROVAL_RESULT_IN_DOUBT)
    elif decision.result is not None:
        template = wording.APPROVAL_RESULT_DONE if decision.ok else wording.APPROVAL_RESULT_FAILED
        lines.append(template.format(result=escape(clip(decision.result, RESULT_CHARS))))
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text="\n".join(x for x in lines if x))]).to_dict())
    return _plain(lines), blocks


def in_doubt_text(notice: InDoubtNotice) -> str:
    """The thread's notice that an approved action may or may not have happened, for a human to check."""
    return wording.APPROVAL_IN_DOUBT_THREAD.format(
        name=notice.name,
        issue=notice.issue,
        user=notice.user or "here",
        link=f" (<{notice.url}|#{notice.issue}>)" if notice.url else "",
    )


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
