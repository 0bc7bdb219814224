"""What a run looks like in Slack: the progress placeholder, the answer messages (task titles: bot/task_titles.py).

Pure functions from a run to Block Kit built with slack_sdk's models, whose `to_dict()` checks
Slack's limits, so a block that is too long fails here, in tests, rather than at Slack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextActionsBlock,
    ContextBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
    MarkdownBlock,
    MarkdownTextObject,
    SectionBlock,
)

from atlas.text import clip, fit_list
from bot import disguised_links
from bot.markdown_split import split_markdown
from bot.slack import wording
from workers import wording as run_words
from workers.agent.sources import source_url
from workers.runs.state import RunState

MARKDOWN_LIMIT = MarkdownBlock.text_max_length  # 12,000: also the cumulative limit per message
CONTEXT_TEXT_LIMIT = 3000
FALLBACK_TEXT_CHARS = 300  # the `text` Slack shows in notifications
PLACEHOLDER_TASKS = 25
FEEDBACK_ACTION = "atlas_feedback"
FEEDBACK_BUTTON_ACTIONS = (f"{FEEDBACK_ACTION}_up", f"{FEEDBACK_ACTION}_down")  # the classic buttons' ids
FILE_ISSUE_ACTION = "atlas_file_issue"  # "File as GitHub issue" under an answer (bot/slack/file_issue.py)
MARK_ANSWER_ACTION = "atlas_mark_answer"  # "Mark as answer" under an answer (bot/slack/solved.py)


@dataclass(frozen=True)
class Message:
    """One Slack message: notification text plus blocks as dicts (already validated)."""

    text: str
    blocks: list[dict[str, Any]]


def placeholder_text(step: int, tasks: list[tuple[str, str]], closing: str | None = None) -> str:
    """The fallback progress message: the step, one line per tool call with its state, a closing line."""
    lines = [wording.PROGRESS_STEP.format(step=step) if step else wording.PROGRESS_START]
    shown = tasks[-PLACEHOLDER_TASKS:]
    for title, status in shown:
        lines.append(f"{wording.TASK_MARK.get(status, '')} {escape(title)}")
    if closing:
        lines.append(closing)
    return "\n".join(lines)


def answer_messages(run: RunState, *, docs_base_url: str | None, issues_base_url: str | None) -> list[Message]:
    """The answer as one or more messages: Markdown parts, then sources, footer and feedback on the last."""
    failed = run.status == "failed"
    reason = run_words.stop_reason(run.stop_reason)
    body = defuse((run.answer or "").strip())
    if failed and (not body or body == (run.error or "").strip()):
        body = ""  # only the stop message, which is internal wording: say it our way
    parts = split_markdown(body, MARKDOWN_LIMIT) if body else []
    banner: dict[str, Any] | None = None
    if failed:
        banner = SectionBlock(text=MarkdownTextObject(text=wording.FAILED.format(reason=reason))).to_dict()
    elif run.partial:
        banner = SectionBlock(text=MarkdownTextObject(text=wording.PARTIAL.format(reason=reason))).to_dict()
    messages: list[Message] = []
    for index, part in enumerate(parts):
        blocks: list[dict[str, Any]] = []
        if index == 0 and banner:
            blocks.append(banner)
        blocks.append(MarkdownBlock(text=part).to_dict())
        messages.append(Message(text=_fallback(part), blocks=blocks))
    if not messages:
        messages.append(
            Message(text=_fallback(wording.FAILED.format(reason=reason)), blocks=[banner] if banner else [])
        )
    last = messages[-1]
    tail = _tail(run, reason, docs_base_url=docs_base_url, issues_base_url=issues_base_url)
    messages[-1] = Message(text=last.text, blocks=last.blocks + tail)
    return messages


def streamed_answer(run: RunState) -> str | None:
    """The answer's Markdown as it is streamed into the progress message (a partial answer says so
    first), or None where it is posted instead: a failed run, or one too long for a single message."""
    body = defuse((run.answer or "").strip())
    if run.status == "failed" or not body:
        return None
    if run.partial:
        body = wording.PARTIAL_MARKDOWN.format(reason=run_words.stop_reason(run.stop_reason)) + "\n\n" + body
    return body if len(body) <= MARKDOWN_LIMIT else None


def answer_tail(run: RunState, *, docs_base_url: str | None, issues_base_url: str | None) -> list[dict[str, Any]]:
    """What ends every answer: its sources, the footer, and the feedback buttons."""
    return _tail(
        run, run_words.stop_reason(run.stop_reason), docs_base_url=docs_base_url, issues_base_url=issues_base_url
    )


def _tail(
    run: RunState, reason: str, *, docs_base_url: str | None, issues_base_url: str | None
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if fileable(run):
        blocks.append(file_issue_block(run.id).to_dict())
    if run.sources:
        links = sources_text(
            run.sources, docs_base_url=docs_base_url, issues_base_url=issues_base_url, urls=run.source_urls
        )
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=links)]).to_dict())
    footer = wording.FOOTER.format(
        steps=len(run.steps),
        step_word=run_words.steps_word(len(run.steps)),
        tokens=run.usage.total,
        cost=run.cost_usd,
        reason=reason,
    )
    if run.partial:
        footer += " · partial"
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=footer)]).to_dict())
    if run.status != "failed":
        blocks.append(feedback_block(run.id).to_dict())
    return blocks


def fileable(run: RunState) -> bool:
    """An answer a thread may be filed from: a finished question's, not a triage card's or a filing's own note."""
    return run.status in ("done", "partial") and run.triage is None and run.filing is None and run.solved is None


def file_issue_block(run_id: str) -> ActionsBlock:
    """The "File as GitHub issue" and "Mark as answer" buttons; their value is only the run id (the click drafts, an
    approver files the issue or keeps the thread as knowledge, bot/slack/solved.py)."""
    return ActionsBlock(
        block_id="atlas_file_issue",
        elements=[
            ButtonElement(text=run_words.FILE_ISSUE_BUTTON, action_id=FILE_ISSUE_ACTION, value=run_id),
            ButtonElement(text=wording.MARK_ANSWER_BUTTON, action_id=MARK_ANSWER_ACTION, value=run_id),
        ],
    )  # solved: knowledge


def feedback_block(run_id: str) -> ContextActionsBlock:
    """Slack's feedback buttons; the clicked value carries the run id and the vote."""
    return ContextActionsBlock(
        elements=[
            FeedbackButtonsElement(
                action_id=FEEDBACK_ACTION,
                positive_button=FeedbackButtonObject(
                    text=wording.FEEDBACK_UP, value=f"{run_id}:up", accessibility_label=wording.FEEDBACK_UP_LABEL
                ),
                negative_button=FeedbackButtonObject(
                    text=wording.FEEDBACK_DOWN, value=f"{run_id}:down", accessibility_label=wording.FEEDBACK_DOWN_LABEL
                ),
            )
        ]
    )


def classic_feedback(blocks: list[dict[str, Any]], run_id: str) -> list[dict[str, Any]] | None:
    """The same blocks with the feedback as two ordinary buttons, for a place that refuses Slack's
    `context_actions` block; None when the blocks have no feedback to replace."""
    if not any(b.get("type") == "context_actions" for b in blocks):
        return None
    buttons = ActionsBlock(
        elements=[
            ButtonElement(
                text=wording.FEEDBACK_UP,
                action_id=FEEDBACK_BUTTON_ACTIONS[0],
                value=f"{run_id}:up",
                accessibility_label=wording.FEEDBACK_UP_LABEL,
            ),
            ButtonElement(
                text=wording.FEEDBACK_DOWN,
                action_id=FEEDBACK_BUTTON_ACTIONS[1],
                value=f"{run_id}:down",
                accessibility_label=wording.FEEDBACK_DOWN_LABEL,
            ),
        ]
    ).to_dict()
    return [buttons if b.get("type") == "context_actions" else b for b in blocks]


def sources_text(
    sources: list[str], *, docs_base_url: str | None, issues_base_url: str | None, urls: dict[str, str] | None = None
) -> str:
    """'*Sources:* <url|#12>, <url|retries-and-backoff>', links only where a base URL is configured."""
    own = urls or {}
    links = [
        f"<{own[source]}|{escape(source)}>"
        if own.get(source)
        else source_link(source, docs_base_url=docs_base_url, issues_base_url=issues_base_url)
        for source in sources
    ]
    return wording.SOURCES.format(links=", ".join(fit_list(links, CONTEXT_TEXT_LIMIT - len(wording.SOURCES) - 20)))


def source_link(source: str, *, docs_base_url: str | None, issues_base_url: str | None) -> str:
    """One source as mrkdwn: a link when its base URL is set, else the id in code style."""
    url = source_url(source, docs_base_url=docs_base_url, issues_base_url=issues_base_url)
    return f"<{url}|{escape(source)}>" if url else f"`{escape(source)}`"


_PING = re.compile(r"<(?=[@#!])|(?<![\w.])@(?=(?:channel|here|everyone)\b)", re.IGNORECASE)


def defuse(text: str) -> str:
    """Model or untrusted text as Slack shows it: `<@U…>`, `<#C…>`, `<!subteam^…>`, `<!channel>`, `@here` and the
    like shown as text, never as a ping (answers quote untrusted issue text); a link whose label names another
    address shows its real host (bot/disguised_links.py)."""
    text = disguised_links.markdown_links(disguised_links.slack_links(text))
    return _PING.sub(lambda m: m.group(0)[0] + "\u200b" + m.group(0)[1:], text)


def escape(text: str) -> str:
    """Slack's three control characters in mrkdwn text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _fallback(text: str) -> str:
    flat = " ".join(text.split())
    return clip(flat, FALLBACK_TEXT_CHARS)
