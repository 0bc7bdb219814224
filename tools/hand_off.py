"""`hand_off`: how a help-channel run says it is not confident, as a call rather than as prose.

Offered only to runs asked in a help channel without a mention (workers/process/runtime.py); the loop ends the
run on it (workers/agent/loop.py `HandedOff`) and the thread gets a hand-off to the maintainers, or
nothing, instead of a guess. Its output is only there to keep every call paired with an output.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tools.context import ToolContext
from tools.registry import Registry, declare

NAME = "hand_off"
LOOKED_AT_CHARS = 300


class HandOffArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    looked_at: str = Field(
        description="One line for the maintainers: what you searched and read, and what was missing. "
        "E.g. 'searched docs and issues for the S3 sink; nothing covers it'."
    )


def hand_off(args: HandOffArgs, ctx: ToolContext) -> str:
    """Hand this question to the project's maintainers instead of answering. Call it when the docs and issues you found
    do not answer the question with confidence (nothing relevant, or only guesses); do not write an answer then. A
    maintainer is asked in the thread with your one-line summary."""
    return "Handed off to the maintainers. End your turn now; write nothing more."


def with_hand_off(base: Registry) -> Registry:
    """`base`'s tools and `hand_off`, for help runs (the base registry, which MCP serves too, never has it)."""
    return base.extended(declare(hand_off, side_effect=False, name=NAME))


def summary(arguments: str) -> str:
    """The call's one line, as the hand-off message shows it."""
    try:
        looked_at = HandOffArgs.model_validate_json(arguments).looked_at
    except ValueError:
        looked_at = ""
    flat = " ".join(looked_at.split())
    return flat[:LOOKED_AT_CHARS] or "the docs and issues"
