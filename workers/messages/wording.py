"""The sentences Slack and Discord both show, written once. `{em}`, `{strong}` and `{icon:NAME}` are slots for
markup that each platform fills with its own (`Markup`): Slack's `_aside_`, `*bold*` and `:warning:` shortcodes,
Discord's `*aside*`, `**bold**` and emoji characters (Discord shows no shortcode in a bot's message).
Every other `{name}` is a value the caller formats in, as before.

A platform's wording module takes what it shows from here (`SLACK.apply(said.PROGRESS_STEP)`), so a change of
words changes both platforms at once; tests/house/test_twin_sentences.py fails on any sentence written twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Markup:
    """How one platform marks an aside (`em`) and a label (`strong`), and shows each icon (ICONS names them)."""

    em: str
    strong: str
    icons: Mapping[str, str]

    def apply(self, sentence: str) -> str:
        """The sentence with its markup slots filled; other `{name}` slots stay for `str.format`."""
        for name in ICONS:
            sentence = sentence.replace(f"{{icon:{name}}}", self.icons[name])
        return sentence.replace("{em}", self.em).replace("{strong}", self.strong)


ICONS = ("warning", "no_entry", "lock", "done", "failed", "raised_hand")  # every platform's Markup shows each of these


# A mention with nothing after it; `{bot}` is the name the platform shows for Atlas.
EMPTY_QUESTION = "Ask me something after the mention, e.g. `@{bot} what does ORB-1202 mean?`"

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

# A slash-command lookup (workers/messages/lookup.py): its title by kind, and what was wrong with its text.
LOOKUP_TITLE = {"issue": "Issue #{arg}", "search": "Issues matching “{arg}”", "docs": "Docs matching “{arg}”"}
LOOKUP_PROBLEM = {  # `{cmd}`: the command as the platform's people type it; `{word}`: the word typed
    "UNKNOWN_SUBCOMMAND": "I don't know `{word}`.",
    "ISSUE_NEEDS_NUMBER": "`issue` needs an issue number, e.g. `{cmd} issue 42`.",
    "SEARCH_NEEDS_WORDS": "`search` needs some words to look for, e.g. `{cmd} search redis timeout`.",
    "DOCS_NEEDS_WORDS": "`docs` needs some words to look for, e.g. `{cmd} docs lease_seconds`.",
    "TOO_LONG": "That's too long to look up; please use fewer words.",
}

# An approval card and its clicks.
APPROVAL_TITLE_OTHER = "{icon:raised_hand} {strong}Atlas wants to run `{name}`{strong}"
APPROVAL_REASON = "{em}Why (the model's words):{em}"
APPROVAL_ISSUE = "{strong}Issue:{strong} {link} ({state})"
APPROVAL_CURRENT_LABELS = "{strong}Current labels:{strong} {labels}"
APPROVAL_COMMENT = "{strong}Comment, exactly as it will be posted:{strong}"
APPROVAL_CLOSE = "{strong}Close as:{strong} {reason}"
APPROVAL_CLOSE_DUPLICATE = "{strong}Close as:{strong} duplicate of {link}"
APPROVAL_NEW_TITLE = "{strong}Title:{strong} {title}"
APPROVAL_NEW_REPO = "{strong}Filed in:{strong} {repo}"  # a new issue's repository, when several are served
APPROVAL_SIMILAR = "May already be reported: open issues like this draft (the triage's duplicate ranking):"
APPROVAL_SIMILAR_ONE = "{link}: score {score:.2f}. Why: {why}"
APPROVAL_LEFT_OUT = "Quotes only the asker's own messages; left out what {who} wrote in the thread."
APPROVAL_APPROVE = "Approve"
APPROVAL_DENY = "Deny"
APPROVAL_ALREADY = "This was already decided: {outcome}"
APPROVAL_GONE = "This approval request is no longer available."
APPROVAL_ELSEWHERE = (
    "This button decides nothing here: an approval is decided only on its own card, where Atlas posted it."
)
APPROVAL_HIDDEN = (
    "{icon:warning} {strong}This contains {count} invisible or direction-changing character{s}{strong},"
    " shown as `<U+…>`: they would be posted as they are."
)
APPROVAL_NOT_ALLOWED = "{icon:no_entry} You can't approve this: only the project's maintainers can decide."
APPROVAL_PROVENANCE = (
    "{icon:warning} {strong}Proposed after reading {sources}{strong}, text anyone can write: look twice."
)
APPROVAL_REDACTED = (
    "{icon:lock} {strong}{count} secret(s) were redacted{strong} from the draft: shown as `[redacted ...]`,"
    " never filed."
)
APPROVAL_RESULT_DONE = "{icon:done} Done: {result}"
APPROVAL_RESULT_FAILED = "{icon:failed} It did not go through: {result}"
APPROVAL_RESULT_IN_DOUBT = (
    "{icon:warning} Atlas was interrupted while running this, or the tracker did not confirm it,"
    " so it may or may not have happened. It was not retried."
)
APPROVAL_UNCONFIRMED = (
    "{icon:warning} Atlas couldn't confirm that click (its store stopped answering). If the card still"
    " has its buttons in a minute, click again; a decision already recorded is kept."
)
EPHEMERAL_UNAVAILABLE = (
    "{icon:warning} Atlas can't record that right now (its store is unreachable). Please try again in a minute."
)
TRIAGE_REPLY_EDITOR = "Edit the reply"  # the title of the form a triage card's Edit opens
TRIAGE_EMPTY_REPLY = "The reply can't be empty or longer than {limit} characters."  # a triage card's edited reply

# A run that ended short.
FAILED = "{icon:failed} {strong}I couldn't finish this one:{strong} {reason}"
PARTIAL = "{icon:warning} {strong}Partial answer:{strong} stopped early ({reason}); this is what I found so far."

# A help run that was not confident (workers/help/), on every platform.
HANDOFF = "{who} I couldn't answer this one with confidence, so I'm leaving it to you. What I looked at: {looked_at}."
# A help channel's message a limit held back (workers/help/): said once per person and channel in an hour.
HELP_HELD = {
    "held_person": "You have asked {person} questions here in the last hour, the most Atlas answers for one person; "
    "it will not answer this one (or the next ones this hour), but a maintainer may.",
    "held_channel": "This channel had its {channel} answers for the last hour, so "
    "Atlas will not answer this one (or your "
    "next ones this hour); a maintainer may.",
}

# Under an answer: the thread drafted as an issue (workers/followup/), and what the one who clicked is told.
FILE_ISSUE_BUTTON = "File as GitHub issue"
FILE_ISSUE_DRAFTING = "Drafting an issue from this thread; a maintainer approves it before anything is filed."
FILE_ISSUE_ALREADY = "An issue draft from this answer was already requested."
FILE_ISSUE_WHICH_REPO = (
    "This install serves several repositories ({repos}) and this answer is not about one of them, so Atlas will not "
    "guess where to file it. Ask in the repository's own channel, or ask Atlas here to file it in one of them by name."
)
FILE_ISSUE_NOTHING = "Nothing to file from this answer."

# Under an answer: "Mark as answer" (workers/knowledge/solved_claim.py), and what the one who marked is told.
SOLVED_STARTED = "Drafting this thread as knowledge; a maintainer approves it on the card."
SOLVED_ALREADY = "This answer was already marked; its knowledge card is in the thread."
SOLVED_PRIVATE = "Only threads in public channels become knowledge."
SOLVED_NOTHING = "That answer is no longer known to Atlas (older than 30 days)."


def steps_word(n: int) -> str:
    return "step" if n == 1 else "steps"
