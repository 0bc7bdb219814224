"""Known shapes of secrets people paste into chat: redacted before their words leave the thread.

A thread filed as a public GitHub issue (workers/followup/) quotes what people wrote; a token pasted
there by mistake must not travel with it. Only shapes a service documents for its tokens are matched
(a GitHub token's prefix, Slack's `xox?-`, OpenAI's `sk-`, an AWS access key id), so ordinary text and
code are left as written. Each one is replaced by a marker naming its kind, and counted, so the card
can say how many were redacted.
"""

from __future__ import annotations

import re

SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})")),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9_])xox[abposre]-[A-Za-z0-9-]{8,255}")),
    ("OpenAI key", re.compile(r"(?<![A-Za-z0-9_])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,255}")),
    ("AWS access key", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])")),
)
MARKER = "[redacted {kind}]"


def redact(text: str) -> tuple[str, int]:
    """`text` with each known secret replaced by a marker naming its kind, and how many were replaced."""
    count = 0
    for kind, shape in SHAPES:
        text, found = shape.subn(MARKER.format(kind=kind), text)
        count += found
    return text, count
