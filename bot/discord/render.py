"""What a run looks like on Discord: progress text, answer messages, approval cards, buttons.

Pure functions from a run to message payloads (`content` plus `components`). A message's content
holds at most 2,000 characters: answers are split on paragraph and code-fence boundaries
(bot/markdown_split.py), and the sources, footer and feedback buttons go on the last part.
Text that comes from outside (issue titles, labels, tool output, names) is escaped for Discord's
Markdown; the answer itself is the model's Markdown, sent with its mentions shown as text (they never ping
either: the REST client sets `allowed_mentions` to none on every message) and its masked links' real hosts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from atlas.text import clip, fit_list
from bot import disguised_links
from bot.discord import wording
from bot.discord.rest import CONTENT_LIMIT
from bot.lookups import TITLE as LOOKUP_TITLE
from bot.markdown_split import split_markdown
from workers import wording as common
from workers.agent.sources import source_url
from workers.approvals.visible_text import hidden_count, reveal
from workers.messages.approval import CardView, shown_text
from workers.runs.state import RunState

PART_LIMIT = 1900  # leaves room for the partial/failed banner on the first part
SOURCES_CHARS = 900
LOOKUP_TITLE_CHARS = 450  # a lookup's title and its "Shared by" line each; the body gets the rest
PROGRESS_TASKS = 20
APPROVE_PREFIX = "atlas_approval_approve:"
DENY_PREFIX = "atlas_approval_deny:"
FEEDBACK_PREFIX = "atlas_feedback:"
SHARE_PREFIX = "atlas_share:"
MARK_ANSWER_PREFIX = (
    "atlas_mark_answer:"  # "Mark as answer": the thread solved, drafted as knowledge (bot/discord/solved.py)
)
FILE_ISSUE_PREFIX = (
    "atlas_file_issue:"  # "File as GitHub issue" beside the feedback buttons (workers/followup/filing.py)
)
BUTTON_PRIMARY, BUTTON_SECONDARY, BUTTON_SUCCESS, BUTTON_DANGER = 1, 2, 3, 4
_MARKDOWN = re.compile(r"([\\*_~`|>#\-\[\]()<:])")


_PING = re.compile(r"<(?=@[!&]?\d)|(?<![\w.])@(?=(?:everyone|here)\b)", re.IGNORECASE)


def defuse(text: str) -> str:
    """The model's Markdown as Discord shows it: `<@id>`, `<@&role>`, `@everyone` and `@here` shown as text (the REST
    client's `allowed_mentions` already keeps them from pinging); a masked link whose label names another address
    shows its real host (bot/disguised_links.py)."""
    return _PING.sub(lambda m: m.group(0) + "\u200b", disguised_links.markdown_links(text))


def escape(text: str) -> str:
    """Discord Markdown's control characters shown as themselves (also defuses `<@id>` and `:emoji:`)."""
    return _MARKDOWN.sub(r"\\\1", text)


def progress_text(step: int, tasks: list[tuple[str, str]], closing: str | None = None) -> str:
    """The progress message: the step, one line per tool call with its state, a closing line."""
    lines = [wording.PROGRESS_STEP.format(step=step) if step else wording.PROGRESS_START]
    for title, status in tasks[-PROGRESS_TASKS:]:
        lines.append(f"{wording.TASK_MARK.get(status, '')} {escape(title)}")
    if closing:
        lines.append(closing)
    return clip("\n".join(lines), CONTENT_LIMIT)


def answer_messages(run: RunState, *, docs_base_url: str | None, issues_base_url: str | None) -> list[dict[str, Any]]:
    """The answer as message payloads; the last one carries sources, footer and feedback buttons."""
    failed = run.status == "failed"
    reason = common.stop_reason(run.stop_reason)
    body = defuse((run.answer or "").strip())
    if failed and (not body or body == defuse((run.error or "").strip())):
        body = ""
    parts = [
        piece for part in (split_markdown(body, PART_LIMIT) if body else []) for piece in _hard_cut(part, PART_LIMIT)
    ]
    banner = (
        wording.FAILED.format(reason=reason) if failed else wording.PARTIAL.format(reason=reason) if run.partial else ""
    )
    if banner:
        parts = [f"{banner}\n\n{parts[0]}" if parts else banner, *parts[1:]]
    tail = tail_text(run, reason, docs_base_url=docs_base_url, issues_base_url=issues_base_url)
    if parts and len(parts[-1]) + 2 + len(tail) <= CONTENT_LIMIT:
        parts[-1] = f"{parts[-1]}\n\n{tail}"
    else:
        parts.append(tail)
    messages: list[dict[str, Any]] = [{"content": part} for part in parts]
    if not failed:
        messages[-1]["components"] = feedback_row(
            run.id, fileable=run.triage is None and run.filing is None and run.solved is None
        )
    return messages


def _hard_cut(part: str, limit: int) -> list[str]:
    """split_markdown keeps to its limit except where one fence line alone is longer (a reopened fence
    then overflows every part): such a part is cut at the limit as plain text."""
    return [part[i : i + limit] for i in range(0, len(part), limit)] or [part]


def tail_text(run: RunState, reason: str, *, docs_base_url: str | None, issues_base_url: str | None) -> str:
    lines: list[str] = []
    if run.sources:
        lines.append(sources_text(run.sources, docs_base_url=docs_base_url, issues_base_url=issues_base_url))
    footer = wording.FOOTER.format(
        steps=len(run.steps),
        step_word=common.steps_word(len(run.steps)),
        tokens=run.usage.total,
        cost=run.cost_usd,
        reason=reason,
    )
    lines.append(footer + (" · partial" if run.partial else ""))
    return "\n".join(lines)


def sources_text(sources: list[str], *, docs_base_url: str | None, issues_base_url: str | None) -> str:
    """'**Sources:** [#12](<url>), [retries](<url>)': links where a base URL is set, else code."""
    links = [source_link(source, docs_base_url=docs_base_url, issues_base_url=issues_base_url) for source in sources]
    return wording.SOURCES.format(links=", ".join(fit_list(links, SOURCES_CHARS)))


def source_link(source: str, *, docs_base_url: str | None, issues_base_url: str | None) -> str:
    url = source_url(source, docs_base_url=docs_base_url, issues_base_url=issues_base_url)
    return f"[{escape(source)}](<{url}>)" if url else f"`{source.replace('`', '')}`"


def feedback_row(run_id: str, up: int = 0, down: int = 0, *, fileable: bool = True) -> list[dict[str, Any]]:
    """Helpful / Not helpful, then File as GitHub issue; the custom ids carry the run id (and the vote)."""

    def label(text: str, count: int) -> str:
        return wording.FEEDBACK_COUNT.format(label=text, count=count) if count else text

    return [
        {
            "type": 1,
            "components": [
                {
                    "type": 2,
                    "style": BUTTON_SECONDARY,
                    "label": label(wording.FEEDBACK_UP, up),
                    "emoji": {"name": "\U0001f44d"},
                    "custom_id": f"{FEEDBACK_PREFIX}{run_id}:up",
                },
                {
                    "type": 2,
                    "style": BUTTON_SECONDARY,
                    "label": label(wording.FEEDBACK_DOWN, down),
                    "emoji": {"name": "\U0001f44e"},
                    "custom_id": f"{FEEDBACK_PREFIX}{run_id}:down",
                },
                *(
                    [
                        {
                            "type": 2,
                            "style": BUTTON_SECONDARY,
                            "label": common.FILE_ISSUE_BUTTON,
                            "custom_id": f"{FILE_ISSUE_PREFIX}{run_id}",
                        },
                        {
                            "type": 2,
                            "style": BUTTON_SECONDARY,
                            "label": wording.MARK_ANSWER_BUTTON,
                            "custom_id": f"{MARK_ANSWER_PREFIX}{run_id}",
                        },
                    ]
                    if fileable
                    else []
                ),
            ],
        }
    ]


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
    number = arguments.get("issue_id")
    if issue is not None:
        lines.append(wording.APPROVAL_ISSUE.format(link=_issue_link(issue), state=escape(str(issue.state))))
    elif number is not None:
        lines.append(wording.APPROVAL_ISSUE.format(link=f"\\#{escape(str(number))}", state="?"))
    if name == "add_labels":
        labels = ", ".join(_code(str(x)) for x in arguments.get("labels") or []) or "none"
        lines.append(wording.APPROVAL_LABELS.format(labels=labels))
        if issue is not None:
            lines.append(
                wording.APPROVAL_CURRENT_LABELS.format(labels=", ".join(_code(x) for x in issue.labels) or "none")
            )
    elif name == "post_comment":  # all of it, in the card's embeds (card_embeds): content holds 2,000 characters
        body = str(arguments.get("body") or "")
        lines.append(wording.APPROVAL_COMMENT_BELOW.format(chars=len(body)))
        more = _comment_pieces(body)[1]
        if more:
            lines.append(wording.APPROVAL_COMMENT_CUT.format(more=more))
    elif name == "create_issue":  # the body whole in the card's embeds, like a comment
        body = str(arguments.get("body") or "")
        lines.append(wording.APPROVAL_NEW_TITLE.format(title=escape(str(arguments.get("title") or ""))))
        lines.append(
            wording.APPROVAL_NEW_LABELS.format(
                labels=", ".join(_code(str(x)) for x in arguments.get("labels") or []) or "none"
            )
        )
        lines.append(wording.APPROVAL_NEW_BODY_BELOW.format(chars=len(body)))
        more = _comment_pieces(body)[1]
        if more:
            lines.append(wording.APPROVAL_COMMENT_CUT.format(more=more))
    elif name == "close_issue":
        if arguments.get("reason") == "duplicate":
            original = (
                _issue_link(duplicate) if duplicate is not None else f"\\#{escape(str(arguments.get('duplicate_of')))}"
            )
            lines.append(wording.APPROVAL_CLOSE_DUPLICATE.format(link=original))
        else:
            lines.append(
                wording.APPROVAL_CLOSE.format(reason=escape(str(arguments.get("reason", "")).replace("_", " ")))
            )
    else:
        lines.append(_fenced(clip(json.dumps(arguments, ensure_ascii=False), 900)))
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


EMBED_DESCRIPTION_LIMIT = 4096  # Discord: one embed's description
EMBEDS_TOTAL_LIMIT = 6000  # Discord: all of a message's embeds together
EMBEDS_PER_MESSAGE = 10
_FENCE_CHARS = len(_FENCE_OPEN := "```\n") + len(_FENCE_CLOSE := "\n```")


def card_embeds(name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """A comment card's comment, whole (hidden characters shown as `<U+…>`), as embeds under the card's
    content: a comment may hold 4,000 characters, the content only 2,000. Mentions in embeds never ping."""
    if name not in ("post_comment", "create_issue"):
        return []
    return [{"description": _fenced(piece)} for piece in _comment_pieces(str(arguments.get("body") or ""))[0]]


def _comment_pieces(body: str) -> tuple[list[str], int]:
    """The revealed comment in pieces whose code blocks fit Discord's embed limits (at most 10 embeds), and
    how many characters did not fit (only a comment padded with thousands of hidden characters)."""
    shown = reveal(body) or " "
    pieces: list[str] = []
    budget, start = EMBEDS_TOTAL_LIMIT, 0
    while start < len(shown) and len(pieces) < EMBEDS_PER_MESSAGE:
        room = min(EMBED_DESCRIPTION_LIMIT, budget)
        piece = shown[start : start + room - _FENCE_CHARS]
        while piece and len(_fenced(piece)) > room:  # broken fences inside take a character each
            piece = piece[: len(piece) - max(1, len(_fenced(piece)) - room)]
        if not piece:
            break
        pieces.append(piece)
        budget -= len(_fenced(piece))
        start += len(piece)
    return pieces, len(shown) - start


def outcome_text(status: str, decider: str, decided_at: float) -> str:
    template = wording.APPROVAL_OUTCOME.get(status)
    if template is None:
        return ""
    user = decider if decider.isdigit() else "?"
    return template.format(user=user, when=int(decided_at))


def _issue_link(issue: Any) -> str:
    text = escape(f"#{issue.number} {issue.title}")
    return f"[{text}](<{issue.url}>)" if getattr(issue, "url", None) else text


def _code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def _fenced(text: str) -> str:
    """A code block nothing inside can close: its own fences are broken with a zero-width space."""
    return _FENCE_OPEN + text.replace("```", "`\u200b``") + _FENCE_CLOSE


def lookup_payload(result: Any, command: str, *, shareable: bool, shared_by: str | None = None) -> dict[str, Any]:
    """A slash-command lookup: its title and the tool's text (escaped), a Share button if asked for."""
    lookup = result.lookup
    title = LOOKUP_TITLE[lookup.kind].format(arg=lookup.arg) + (f" ({lookup.state})" if lookup.state else "")
    body = result.text if result.ok else result.text.split("\nHint:")[0]
    footer = (
        wording.SHARED_BY.format(user=shared_by, cmd=command, text=lookup.text.replace("`", "")) if shared_by else ""
    )
    head = f"**{clip(escape(title), LOOKUP_TITLE_CHARS)}**\n"  # measured escaped: escaping can double it
    tail = f"\n{clip(footer, LOOKUP_TITLE_CHARS)}" if footer else ""
    content = head + clip(escape(body), CONTENT_LIMIT - len(head) - len(tail)) + tail
    payload: dict[str, Any] = {"content": content}
    custom_id = SHARE_PREFIX + lookup.text
    if shareable and result.ok and len(custom_id) <= 100:
        payload["components"] = [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": BUTTON_PRIMARY, "label": wording.SHARE_BUTTON, "custom_id": custom_id}
                ],
            }
        ]
    return payload
