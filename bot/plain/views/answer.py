"""A run's answer as plain text, from its value (workers/messages/answer.py): the body as the model wrote it, the
sources by id, a footer with the steps, tokens, cost and the stop reason's code."""

from __future__ import annotations

from bot.plain import wording
from workers.messages.answer import Answer


def answer_text(answer: Answer) -> str:
    """The answer; a failed run's says so first (its body, when there is one, below)."""
    lines = [wording.FAILED.format(reason=answer.reason)] if answer.failed else []
    if answer.body or not answer.failed:
        lines.append(answer.body or wording.NO_ANSWER)
    lines.append("")
    if answer.sources:
        lines.append(wording.SOURCES.format(links=", ".join(source.id for source in answer.sources)))
    lines.append(
        wording.FOOTER.format(
            steps=answer.steps,
            step_word=wording.steps_word(answer.steps),
            tokens=answer.tokens,
            cost=answer.cost_usd,
            reason=answer.stop_code,
            partial=wording.PARTIAL_MARK if answer.partial else "",
        )
    )
    return "\n".join(lines)
