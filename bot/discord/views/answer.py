"""A run's answer on Discord, from its value (workers/messages/answer.py): message payloads (`content` plus
`components`) that each hold at most 2,000 characters. Answers are split on paragraph and code-fence boundaries
(bot/markdown_split.py), and the sources, footer and feedback buttons go on the last part.
"""

from __future__ import annotations

from typing import Any

from atlas.text import fit_list
from bot.discord import wording
from bot.discord.views.components import (
    BUTTON_SECONDARY,
    FEEDBACK_PREFIX,
    FILE_ISSUE_PREFIX,
    MARK_ANSWER_PREFIX,
)
from bot.discord.views.limits import CONTENT_LIMIT
from bot.discord.views.markup import defuse, escape
from bot.markdown_split import split_markdown
from workers.messages.answer import Answer, Source

PART_LIMIT = 1900  # leaves room for the partial/failed banner on the first part
SOURCES_CHARS = 900


def answer_messages(answer: Answer) -> list[dict[str, Any]]:
    """The answer as message payloads; the last one carries sources, footer and feedback buttons."""
    body = defuse(answer.body)
    parts = [
        piece for part in (split_markdown(body, PART_LIMIT) if body else []) for piece in _hard_cut(part, PART_LIMIT)
    ]
    reason = answer.reason
    banner = (
        wording.FAILED.format(reason=reason)
        if answer.failed
        else wording.PARTIAL.format(reason=reason)
        if answer.partial
        else ""
    )
    if banner:
        parts = [f"{banner}\n\n{parts[0]}" if parts else banner, *parts[1:]]
    tail = tail_text(answer)
    if parts and len(parts[-1]) + 2 + len(tail) <= CONTENT_LIMIT:
        parts[-1] = f"{parts[-1]}\n\n{tail}"
    else:
        parts.append(tail)
    messages: list[dict[str, Any]] = [{"content": part} for part in parts]
    if answer.votes:
        messages[-1]["components"] = feedback_row(answer.run_id, fileable=answer.fileable)
    return messages


def _hard_cut(part: str, limit: int) -> list[str]:
    """split_markdown keeps to its limit except where one fence line alone is longer (a reopened fence
    then overflows every part): such a part is cut at the limit as plain text."""
    return [part[i : i + limit] for i in range(0, len(part), limit)] or [part]


def tail_text(answer: Answer) -> str:
    """The sources line and the footer (steps, tokens, cost, why it stopped)."""
    lines = [sources_text(answer.sources)] if answer.sources else []
    footer = wording.FOOTER.format(
        steps=answer.steps,
        step_word=wording.steps_word(answer.steps),
        tokens=answer.tokens,
        cost=answer.cost_usd,
        reason=answer.reason,
    )
    lines.append(footer + (" · partial" if answer.partial else ""))
    return "\n".join(lines)


def sources_text(sources: tuple[Source, ...]) -> str:
    """'**Sources:** [#12](<url>), [retries](<url>)': links where a source has a URL, else code."""
    return wording.SOURCES.format(links=", ".join(fit_list([source_link(s) for s in sources], SOURCES_CHARS)))


def source_link(source: Source) -> str:
    if source.url:
        return f"[{escape(source.id)}](<{source.url}>)"
    return f"`{source.id.replace('`', '')}`"


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
                            "label": wording.FILE_ISSUE_BUTTON,
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
