"""The sentences Slack and Discord both show, written once. `{em}` and `{strong}` are slots for markup that each
platform fills with its own (`Markup`): Slack's `_aside_` and `*bold*`, Discord's `*aside*` and `**bold**`.
Every other `{name}` is a value the caller formats in, as before.

A platform's wording module takes what it shows from here (`SLACK.apply(said.PROGRESS_STEP)`), so a change of
words changes both platforms at once; tests/house/test_twin_sentences.py finds the sentences still written twice.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Markup:
    """How one platform marks an aside (`em`) and a label (`strong`)."""

    em: str
    strong: str

    def apply(self, sentence: str) -> str:
        """The sentence with its markup slots filled; other `{name}` slots stay for `str.format`."""
        return sentence.replace("{em}", self.em).replace("{strong}", self.strong)


# A run's progress message.
PROGRESS_START = "{em}Working on it...{em}"
PROGRESS_STEP = "{em}Working on it... step {step}{em}"
PROGRESS_DONE = "{em}Done after {steps} {step_word}; the answer is below.{em}"
PROGRESS_FAILED = "{em}Stopped; see below.{em}"
PROGRESS_PAUSED = "{em}Paused: a proposed action needs a maintainer's approval.{em}"

# Under an answer.
SOURCES = "{strong}Sources:{strong} {links}"
FEEDBACK_UP = "Helpful"
FEEDBACK_DOWN = "Not helpful"
SHARE_BUTTON = "Share in channel"
MARK_ANSWER_BUTTON = "Mark as answer"  # the thread is solved, drafted as knowledge
LOOKUP_FAILED = "The lookup failed on Atlas's side. Please try again."

# An approval card and its clicks.
APPROVAL_ISSUE = "{strong}Issue:{strong} {link} ({state})"
APPROVAL_CURRENT_LABELS = "{strong}Current labels:{strong} {labels}"
APPROVAL_COMMENT = "{strong}Comment, exactly as it will be posted:{strong}"
APPROVAL_CLOSE = "{strong}Close as:{strong} {reason}"
APPROVAL_CLOSE_DUPLICATE = "{strong}Close as:{strong} duplicate of {link}"
APPROVAL_NEW_TITLE = "{strong}Title:{strong} {title}"
APPROVAL_SIMILAR = "May already be reported: open issues like this draft (the triage's duplicate ranking):"
APPROVAL_SIMILAR_ONE = "{link}: score {score:.2f}. Why: {why}"
APPROVAL_LEFT_OUT = "Quotes only the asker's own messages; left out what {who} wrote in the thread."
APPROVAL_APPROVE = "Approve"
APPROVAL_DENY = "Deny"
APPROVAL_ALREADY = "This was already decided: {outcome}"
APPROVAL_GONE = "This approval request is no longer available."
APPROVAL_ELSEWHERE = "This button decides nothing here: an approval is decided only on its own card, where Atlas posted it."
