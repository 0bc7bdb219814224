"""The words of a run that every chat platform shows alike: offline answers, failures, stop reasons,
what a tool call is doing (workers/messages/task_titles.py), where an approval's proposal came from
(workers/messages/approval.py).

Slack's own sentences are in bot/slack/wording.py, Discord's in bot/discord/wording.py."""

from __future__ import annotations

from workers.messages.wording import FILE_ISSUE_BUTTON as FILE_ISSUE_BUTTON
from workers.messages.wording import HANDOFF as HANDOFF
from workers.messages.wording import HELP_HELD as HELP_HELD
from workers.messages.wording import steps_word as steps_word

STOP_REASONS = {
    "done": "done",
    "max_steps": "step budget reached",
    "max_seconds": "time budget reached",
    "max_tokens": "token budget reached",
    "max_errors": "too many tool errors",
    "model_unavailable": "the model API was unreachable",
    "model_malformed": "the model API's replies were not valid responses",
    "model_rejected": "the model API refused the request",
    "worker_lost": "the worker stopped",
    "approval_expired": "an approval expired",
    "internal_error": "internal error",
    "stopped_by_user": "stopped by you",
    "settings_mismatch": "worker settings differ",
    "spend_cap": "daily spending limit reached",
}


# What a tool call is doing, as a progress line shows it (workers/messages/task_titles.py).
TASK_SEARCH_ISSUES = "Searching issues for “{query}”"
TASK_SEARCH_ISSUES_STATE = "Searching {state} issues for “{query}”"
TASK_GET_ISSUE = "Reading issue #{number}"
TASK_SEARCH_DOCS = "Searching the docs for “{query}”"
TASK_GET_DOC = "Reading the docs: {doc}"
TASK_GET_DOC_SECTION = "Reading the docs: {doc} § {heading}"
TASK_READ_MORE = "Reading more of an earlier result"
TASK_OTHER = "Running {name}"
# What a run read before proposing an approval, beside "#237" on the card (workers/messages/approval.py).
APPROVAL_PROVENANCE_SEARCH = "issue search results"


def stop_reason(reason: str | None) -> str:
    """A human phrase for a stop reason; unknown ones are shown as they are, never with details."""
    return STOP_REASONS.get(reason or "done", (reason or "done").replace("_", " "))


# --- a run's answer when it could not finish (workers/jobs/runs.py, settings_check.py, agent/loop.py),
# and the offline model's own phrases (workers/agent/offline.py) ------------------------------
OFFLINE_NOTE = (
    "_No language model is configured, so this answer was put together by Atlas's "
    "offline mode from the best-matching docs and issues._"
)
# The offline model's connecting phrases (everything else it says is quoted from the tools).
OFFLINE_SMALL_TALK = "You're welcome! Mention me any time you need something from the docs or the tracker."
OFFLINE_NOTHING_FOUND = "I could not find anything about this in the docs or the issue tracker."
OFFLINE_NOTHING_ABOUT = "I found nothing about {what} in the docs or issues."
OFFLINE_RESOLUTION = "Resolved in comment {number}, by {author}:"
OFFLINE_FROM_DOCS = "From the docs, {where}:"
OFFLINE_SURE = "This section has most of the words your question names ({found}), so it likely answers it."
OFFLINE_UNSURE = (
    "This is the closest section I found, but I'm not sure it answers you: it shares only {found} with your question."
)
OFFLINE_CLOSEST = (
    "This is the section closest to your question in meaning, but it "
    "shares none of its words: check that it answers you."
)
OFFLINE_SEE_ALSO = "See also {where}."
OFFLINE_ISSUE = "Issue {header}"
OFFLINE_RELATED = "Related issues:"
OFFLINE_FROM_CODE = "In the code, `{path}` lines {start}-{end} ({link}):"
OFFLINE_FROM_HISTORY = "From {what} ({link}):"
OFFLINE_FROM_SOLVED = "From {what} a maintainer approved ({link}):"  # what: tools/solved_threads.py CITED_AS
OFFLINE_SOLVED_LINKS = "Its links: {links}"
OUT_OF_BUDGET = "I ran out of budget before I could write an answer."
MODEL_DOWN = "The model API could not be reached, even after retries."
REDIS_DOWN = "Atlas lost its connection to Redis, even after retries."
MODEL_REFUSED = "The model API refused the request: {error}"
MODEL_MALFORMED = "The model API's replies were not valid responses, even after retries (check OPENAI_BASE_URL)."
RUN_INTERNAL_ERROR = "Atlas hit an internal error while working on this."
WORKER_LOST = "The worker running this question stopped before it finished."
STOPPED_BY_USER = "Stopped at the request of the person who asked, before an answer was written."
SETTINGS_MISMATCH = (
    "A worker with different settings (model, data folder or budgets) than the process that took this "
    "question picked it up, so it did not answer. Restart the workers with the same settings, then ask again."
)
# A model call refused by a daily spend cap (workers/agent/spend.py): the run's one message, said instead of an answer.
SPEND_CAP = (
    "{what} (${limit:.2f} a day) is reached, so Atlas is not asking the model anything more until it resets at "
    "00:00 UTC, in {wait}. Issue lookups keep working, and new issues are still triaged offline."
)
SPEND_CAP_WHAT = {"install": "Today's spending limit for Atlas", "channel": "Today's spending limit for this channel"}


def spend_cap(which: str, limit: float, seconds_to_reset: float) -> str:
    minutes = max(1, int(seconds_to_reset // 60))
    wait = f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"
    return SPEND_CAP.format(what=SPEND_CAP_WHAT.get(which, SPEND_CAP_WHAT["install"]), limit=limit, wait=wait)


# Filing a thread as an issue, and the notices of a subscribed thread (workers/followup/).
FILE_ISSUE_REFUSED = "Atlas could not draft an issue from this thread: {reason}"
FILE_ISSUE_ADDED = (
    "{result} Added to #{number} instead of filing a new issue. This thread is subscribed: "
    "Atlas will post here when #{number} is closed or a release mentions it."
)
FILE_ISSUE_DONE = "{result} This thread is subscribed: Atlas will post here when it is closed or a release mentions it."
NOTICE_CLOSED = "#{number} \u201c{title}\u201d was closed by {who} {how}: {url}"
NOTICE_CLOSED_HOW = {"completed": "as completed", "not_planned": "as not planned", "duplicate": "as a duplicate"}
NOTICE_DUPLICATE_OF = "as a duplicate of #{original}"
NOTICE_RELEASED = "#{number} is mentioned in release {release}: {url}"
