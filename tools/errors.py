"""A tool's failure as a value the model reads: what went wrong and what to do next.

Tools return a `ToolError` instead of raising; dispatch renders it as

    Error: <error>
    Hint: <hint>

Wording shared by several tools lives here so it reads the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from atlas.errors import AtlasError

FIX_FIELD = "Fix the field and call again."
UNEXPECTED = "The tool failed unexpectedly."
UNEXPECTED_HINT = "This is not your fault. Try a different tool or answer with what you already have."
BAD_DATA = "The project's data could not be read: {problem}"
BAD_DATA_HINT = "A maintainer has to fix that file. Try a different tool or answer with what you already have."


@dataclass(frozen=True)
class ToolError:
    """A well-formed call that could not be served: the reason and an actionable next step."""

    error: str
    hint: str
    in_doubt: bool = False  # a write that may have happened: the approval gate settles it from the tracker

    def render(self) -> str:
        """The exact text the model reads."""
        return f"Error: {self.error}\nHint: {self.hint}"


def for_people(text: str) -> str:
    """A tool result as a maintainer reads it (on a card): without the hint, which is written for the model."""
    return text.split("\nHint:", 1)[0].removeprefix("Error: ")


class CalculationError(AtlasError, ValueError):
    """The expression is not plain arithmetic or its value is out of bounds; the message says which."""


class RegistryError(AtlasError, ValueError):
    """A tool was declared wrongly (duplicate name, missing docstring, bad arguments type): a bug."""


class TrackerError(AtlasError):
    """A write or lookup the tracker refused (no such issue, unknown label): the caller's input."""


class TrackerUnavailable(AtlasError):
    """The tracker could not be reached or failed (database locked, HTTP 5xx): not the caller's fault."""


class WriteTurnTimeout(AtlasError, TimeoutError):
    """Another write held the repository's turn for too long."""


class TrackerInDoubt(TrackerUnavailable):
    """A write was sent but not confirmed (timeout, 5xx, a cut connection): it may have happened.
    Settle it from the tracker before saying anything; never report it as failed, never resend it."""
