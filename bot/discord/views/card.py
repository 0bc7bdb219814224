"""An approval card on Discord: its description, the comment or body whole in embeds, its buttons, its outcome.

What a card shows is gathered once for every platform (workers/messages/approval.py). Direction controls in it are
shown as `<U+202E>`, so what the approver reads is what runs.
"""

from __future__ import annotations

import json
from typing import Any

from atlas.text import clip
from bot.discord import wording
from bot.discord.views.card_embeds import comment_pieces
from bot.discord.views.components import APPROVE_PREFIX, BUTTON_DANGER, BUTTON_SUCCESS, DENY_PREFIX
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import code, escape, fenced, issue_link
from workers.approvals.visible_text import hidden_count, reveal
from workers.messages.approval import CardView, Decision, shown_text


def card_buttons(pending_id: str) -> list[dict[str, Any]]:
    """Approve / Deny; each custom id is the action and only the opaque pending id."""
    return [
        {
            "type": 1,
            "components": [
                {
                    "type": 2,
                    "style": BUTTON_SUCCESS,
                    "label": wording.APPROVAL_APPROVE,
                    "custom_id": APPROVE_PREFIX + pending_id,
                },
                {
                    "type": 2,
                    "style": BUTTON_DANGER,
                    "label": wording.APPROVAL_DENY,
                    "custom_id": DENY_PREFIX + pending_id,
                },
            ],
        }
    ]


def _filing_notes(card: CardView, drafted: str) -> list[str]:
    """A "File as GitHub issue" draft's lines: who drafted it (the model, or the thread's words), the secrets it
    redacted, the people whose words it left out (never pinged: allowed_mentions is none)."""
    notes = [wording.APPROVAL_DRAFTED_BY[drafted]] if drafted in wording.APPROVAL_DRAFTED_BY else []
    if card.redacted:
        notes.append(wording.APPROVAL_REDACTED.format(count=card.redacted))
    if card.left_out:
        notes.append(
            wording.APPROVAL_LEFT_OUT.format(
                who=", ".join(f"<@{w}>" if w.isdigit() else escape(w) for w in card.left_out[:10])
            )
        )
    return notes


def _similar(card: CardView) -> list[str]:
    """A draft's open issues that may be the same (untrusted titles and evidence: escaped, invisible characters
    shown)."""
    lines = [wording.APPROVAL_SIMILAR] if card.similar else []
    for found in card.similar:
        label = escape(reveal(f"#{int(found.get('id') or 0)} {found.get('title') or ''}".strip()))[:200]
        url = str(found.get("url") or "")
        link = f"[{label}](<{url}>)" if url.startswith("https://") and ">" not in url else label
        lines.append(
            wording.APPROVAL_SIMILAR_ONE.format(
                link=link,
                score=float(found.get("score") or 0.0),
                why=escape(reveal(str(found.get("evidence") or ""))[:300]),
            )
        )
    return lines


def card_text(card: CardView) -> str:
    """The card's description (everything but the buttons), within Discord's content limit. Direction
    controls in it are shown as `<U+202E>`, so what the approver reads is what runs, and counted as on
    every platform (workers/messages/approval.py shown_text)."""
    name, arguments, issue, duplicate, reason = card.name, card.arguments, card.issue, card.duplicate, card.reason
    asker, expires_at, read, drafted = card.asker, card.expires_at, card.read, card.drafted
    lines = [wording.APPROVAL_TITLE.get(name) or wording.APPROVAL_TITLE_OTHER.format(name=name[:64].replace("`", ""))]
    lines += _filing_notes(card, drafted)
    lines += _similar(card)
    number, repo = arguments.get("issue_id"), code(card.repo) + " " if card.repo else ""  # several repositories
    if issue is not None:
        lines.append(wording.APPROVAL_ISSUE.format(link=repo + issue_link(issue), state=escape(str(issue.state))))
    elif number is not None:
        lines.append(wording.APPROVAL_ISSUE.format(link=f"{repo}\\#{escape(str(number))}", state="?"))
    if name == "add_labels":
        labels = ", ".join(code(str(x)) for x in arguments.get("labels") or []) or "none"
        lines.append(wording.APPROVAL_LABELS.format(labels=labels))
        if issue is not None:
            lines.append(
                wording.APPROVAL_CURRENT_LABELS.format(labels=", ".join(code(x) for x in issue.labels) or "none")
            )
    elif name == "post_comment":  # all of it, in the card's embeds (card_embeds): content holds 2,000 characters
        body = str(arguments.get("body") or "")
        lines.append(wording.APPROVAL_COMMENT_BELOW.format(chars=len(body)))
        more = comment_pieces(body)[1]
        if more:
            lines.append(wording.APPROVAL_COMMENT_CUT.format(more=more))
    elif name == "create_issue":  # the body whole in the card's embeds, like a comment
        body = str(arguments.get("body") or "")
        lines += [wording.APPROVAL_NEW_REPO.format(repo=code(card.repo))] if card.repo else []  # several served
        lines.append(wording.APPROVAL_NEW_TITLE.format(title=escape(str(arguments.get("title") or ""))))
        lines.append(
            wording.APPROVAL_NEW_LABELS.format(
                labels=", ".join(code(str(x)) for x in arguments.get("labels") or []) or "none"
            )
        )
        lines.append(wording.APPROVAL_NEW_BODY_BELOW.format(chars=len(body)))
        more = comment_pieces(body)[1]
        if more:
            lines.append(wording.APPROVAL_COMMENT_CUT.format(more=more))
    elif name == "close_issue":
        if arguments.get("reason") == "duplicate":
            original = (
                issue_link(duplicate) if duplicate is not None else f"\\#{escape(str(arguments.get('duplicate_of')))}"
            )
            lines.append(wording.APPROVAL_CLOSE_DUPLICATE.format(link=original))
        else:
            lines.append(
                wording.APPROVAL_CLOSE.format(reason=escape(str(arguments.get("reason", "")).replace("_", " ")))
            )
    else:
        lines.append(fenced(clip(json.dumps(arguments, ensure_ascii=False), 900)))
    if reason:
        lines.append(wording.APPROVAL_REASON)
        lines.append("\n".join("> " + escape(line) for line in clip(reason, 500).splitlines() if line.strip()))
    if read:
        sources = ", ".join(read[:-1]) + (" and " if len(read) > 1 else "") + read[-1]
        lines.append(wording.APPROVAL_PROVENANCE.format(sources=escape(sources)))
    hidden = hidden_count(shown_text(card))
    if hidden:
        lines.append(wording.APPROVAL_HIDDEN.format(count=hidden, s="" if hidden == 1 else "s"))
    lines.append(
        wording.APPROVAL_ASKED_BY.format(
            user=escape(asker or "unknown") if not (asker or "").isdigit() else asker, when=int(expires_at)
        )
    )
    return clip(reveal("\n".join(lines)), CONTENT_LIMIT - 600)  # measured as shown; room for the outcome lines


def outcome_text(decision: Decision) -> str:
    """Who decided and when (`<@id>` and `<t:unix:f>`, which Discord shows in the reader's time zone)."""
    template = wording.APPROVAL_OUTCOME.get(decision.status)
    if template is None:
        return ""
    user = decision.decider if (decision.decider or "").isdigit() else "?"
    return template.format(user=user, when=int(decision.decided_at))


def decided_payload(shown: str, decision: Decision) -> dict[str, Any]:
    """A card's message after a decision: what it showed, who decided and when, the result; no buttons."""
    lines = [shown, outcome_text(decision)]
    if decision.in_doubt:
        lines.append(wording.APPROVAL_RESULT_IN_DOUBT)
    elif decision.result is not None:
        template = wording.APPROVAL_RESULT_DONE if decision.ok else wording.APPROVAL_RESULT_FAILED
        lines.append(template.format(result=escape(clip(decision.result, 300))))
    return {"content": clip("\n".join(x for x in lines if x), CONTENT_LIMIT), "components": []}
