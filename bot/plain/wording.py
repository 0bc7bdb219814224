"""What Atlas says in plain text (a terminal): the shared sentences with their markup slots filled by nothing, and
the few lines only this surface shows."""

from __future__ import annotations

from workers import wording as common
from workers.messages import wording as said

PLAIN = said.Markup(
    em="",
    strong="",  # plain text marks nothing
    icons={"warning": "!", "no_entry": "x", "lock": "#", "done": "ok:", "failed": "x", "raised_hand": "?"},
)

FAILED = PLAIN.apply(said.FAILED)
NO_ANSWER = "(no answer)"
SOURCES = "Sources: {links}"
FOOTER = "-- {steps} {step_word}, {tokens:,} tokens, ${cost:.4f}, stop: {reason}{partial}"
PARTIAL_MARK = " (partial)"
PAUSED = "Atlas proposed {count} action(s) that run only after a maintainer approves them:"
PAUSED_CALL = "  - {name}({arguments})"
PAUSED_WHERE = "Approvals happen on the cards Atlas posts in chat; from the command line nothing is changed."
steps_word = common.steps_word  # "step" or "steps", as every platform says it (workers/wording.py)
# A triage card (a proposal over MCP shows its own): the issue by number until its title is read.
TRIAGE_ISSUE = "Issue #{issue}"
TRIAGE_LINK = "{label} ({url})"
TRIAGE_WAITING = "Waiting for a maintainer's Approve or Reject on the card."
TRIAGE_QUEUED = "Not on a card yet: a worker checks it against the tracker first, then posts the card."
TRIAGE_REPLY_LINE = "  | {line}"
