"""The answer in Slack (from workers/messages/answer.py's `Answer`): Markdown parts, then the buttons under it,
its sources, the footer and the feedback on the last; or the Markdown streamed into the progress message.

Built with slack_sdk's models, whose `to_dict()` checks Slack's limits, so a block that is too long fails here, in
tests, rather than at Slack. The blocks whose only part of their own is the run id (the buttons, the feedback) are
built and checked once per process, with a stand-in id longer than any run's, and copied with the run's id: checking
them for every answer was about a twentieth of a worker's CPU per one-step run (issue 40's `hot_paths`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
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

from atlas.text import fit_list
from bot.markdown_split import split_markdown
from bot.slack import wording
from bot.slack.views.markup import defuse, escape, fallback
from workers.messages import wording as said
from workers.messages.answer import Answer, Source

MARKDOWN_LIMIT = MarkdownBlock.text_max_length  # 12,000: also the cumulative limit per message
CONTEXT_TEXT_LIMIT = 3000
FEEDBACK_ACTION = "atlas_feedback"
FEEDBACK_BUTTON_ACTIONS = (f"{FEEDBACK_ACTION}_up", f"{FEEDBACK_ACTION}_down")  # the classic buttons' ids
FILE_ISSUE_ACTION = "atlas_file_issue"  # "File as GitHub issue" under an answer (bot/slack/file_issue.py)
MARK_ANSWER_ACTION = "atlas_mark_answer"  # "Mark as answer" under an answer (bot/slack/solved.py)


@dataclass(frozen=True)
class Message:
    """One Slack message: notification text plus blocks as dicts (already validated); `run_id`: the run whose
    feedback its blocks carry, for `classic`."""

    text: str
    blocks: list[dict[str, Any]]
    run_id: str = ""

    @property
    def classic(self) -> list[dict[str, Any]] | None:
        """The same blocks with plain feedback buttons, for a place that refuses Slack's feedback block (None: no
        feedback to replace). Made only then: most places take the feedback block."""
        return classic_feedback(self.blocks, self.run_id) if self.run_id else None


@dataclass(frozen=True)
class SlackAnswer:
    """The answer rendered once for every way it may go out: messages of its own, or Markdown streamed into the
    progress message (None where it is posted instead) and the tail that stops the stream, or plain text alone."""

    run_id: str
    messages: list[Message]
    streamed: str | None
    tail: list[dict[str, Any]]
    text: str


def slack_answer(answer: Answer) -> SlackAnswer:
    """What the posting modules are handed (bot/slack/thread_answer.py): they post it and render nothing."""
    tail = answer_tail(answer)
    messages = [Message(m.text, m.blocks, answer.run_id) for m in answer_messages(answer, tail)]
    return SlackAnswer(answer.run_id, messages, streamed_markdown(answer), tail, text_only(answer))


def answer_messages(answer: Answer, tail: list[dict[str, Any]] | None = None) -> list[Message]:
    """The answer as one or more messages: Markdown parts, then sources, footer and feedback on the last (`tail`:
    `answer_tail(answer)`, when the caller has it already)."""
    body = defuse(answer.body)
    parts = split_markdown(body, MARKDOWN_LIMIT) if body else []
    banner: dict[str, Any] | None = None
    if answer.failed:
        banner = SectionBlock(text=MarkdownTextObject(text=wording.FAILED.format(reason=answer.reason))).to_dict()
    elif answer.partial:
        banner = SectionBlock(text=MarkdownTextObject(text=wording.PARTIAL.format(reason=answer.reason))).to_dict()
    messages: list[Message] = []
    for index, part in enumerate(parts):
        blocks: list[dict[str, Any]] = []
        if index == 0 and banner:
            blocks.append(banner)
        blocks.append(MarkdownBlock(text=part).to_dict())
        messages.append(Message(text=fallback(part), blocks=blocks))
    if not messages:
        text = fallback(wording.FAILED.format(reason=answer.reason))
        messages.append(Message(text=text, blocks=[banner] if banner else []))
    last = messages[-1]
    messages[-1] = Message(text=last.text, blocks=last.blocks + (answer_tail(answer) if tail is None else tail))
    return messages


def streamed_markdown(answer: Answer) -> str | None:
    """The answer's Markdown as it is streamed into the progress message (a partial answer says so
    first), or None where it is posted instead: a failed run, or one too long for a single message."""
    body = defuse(answer.body)
    if answer.failed or not body:
        return None
    if answer.partial:
        body = wording.PARTIAL_MARKDOWN.format(reason=answer.reason) + "\n\n" + body
    return body if len(body) <= MARKDOWN_LIMIT else None


def text_only(answer: Answer) -> str:
    """The answer as plain text, for a place that refuses its blocks."""
    return defuse(answer.body or wording.PROGRESS_FAILED)


def answer_tail(answer: Answer) -> list[dict[str, Any]]:
    """What ends every answer: the buttons to file it or mark it, its sources, the footer, the feedback buttons."""
    blocks: list[dict[str, Any]] = []
    if answer.fileable:
        blocks.append(_for_run(file_issue_block, answer.run_id))
    if answer.sources:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=sources_text(answer.sources))]).to_dict())
    footer = wording.FOOTER.format(
        steps=answer.steps,
        step_word=said.steps_word(answer.steps),
        tokens=answer.tokens,
        cost=answer.cost_usd,
        reason=answer.reason,
    )
    if answer.partial:
        footer += " · partial"
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=footer)]).to_dict())
    if answer.votes:
        blocks.append(_for_run(feedback_block, answer.run_id))
    return blocks


RUN_ID_STAND_IN = "atlas-run-id-stand-in-" + "0" * 42  # 64 characters: longer than any run id (16 hex digits)


def _for_run(block: Callable[[str], Any], run_id: str) -> dict[str, Any]:
    """`block(run_id).to_dict()`, from the block built and checked once with `RUN_ID_STAND_IN`; a run id over its
    length is built and checked on its own."""
    if len(run_id) > len(RUN_ID_STAND_IN):
        return dict(block(run_id).to_dict())
    within = json.dumps(run_id)[1:-1]  # as it is written inside a JSON string
    return dict(json.loads(_checked(block).replace(RUN_ID_STAND_IN, within)))


@functools.cache
def _checked(block: Callable[[str], Any]) -> str:
    return json.dumps(block(RUN_ID_STAND_IN).to_dict())


def file_issue_block(run_id: str) -> ActionsBlock:
    """The "File as GitHub issue" and "Mark as answer" buttons; their value is only the run id (the click drafts, an
    approver files the issue or keeps the thread as knowledge, bot/slack/solved.py)."""
    return ActionsBlock(
        block_id="atlas_file_issue",
        elements=[
            ButtonElement(text=said.FILE_ISSUE_BUTTON, action_id=FILE_ISSUE_ACTION, value=run_id),
            ButtonElement(text=wording.MARK_ANSWER_BUTTON, action_id=MARK_ANSWER_ACTION, value=run_id),
        ],
    )


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
    buttons = _for_run(classic_buttons, run_id)
    return [buttons if b.get("type") == "context_actions" else b for b in blocks]


def classic_buttons(run_id: str) -> ActionsBlock:
    """The feedback as two ordinary buttons, with the values of Slack's feedback block."""
    return ActionsBlock(
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
    )


def sources_text(sources: tuple[Source, ...] | list[Source]) -> str:
    """'*Sources:* <url|#12>, <url|retries-and-backoff>', links only where the source has a URL."""
    links = [source_link(s) for s in sources]
    return wording.SOURCES.format(links=", ".join(fit_list(links, CONTEXT_TEXT_LIMIT - len(wording.SOURCES) - 20)))


def source_link(source: Source) -> str:
    """One source as mrkdwn: a link when it has a URL, else the id in code style."""
    return f"<{source.url}|{escape(source.id)}>" if source.url else f"`{escape(source.id)}`"
