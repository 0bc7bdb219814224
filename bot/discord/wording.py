"""Every sentence a Discord user reads from Atlas, in one place.

Discord does not turn `:shortcodes:` into emoji in a bot's messages, so these use the characters;
`<@id>` is a user mention (never a ping: every message sets `allowed_mentions` to none) and
`<t:unix:f>` a timestamp shown in the reader's time zone.
"""

from __future__ import annotations

from workers import wording as common
from workers.messages import wording as said

DISCORD = said.Markup(
    em="*",
    strong="**",  # fills the neutral sentences' markup slots
    icons={
        "warning": "\u26a0\ufe0f",
        "no_entry": "\u26d4",
        "lock": "\U0001f512",
        "done": "\u2705",
        "failed": "\u274c",
        "raised_hand": "\u270b",
    },
)

PROGRESS_START = DISCORD.apply(said.PROGRESS_START)
PROGRESS_STEP = DISCORD.apply(said.PROGRESS_STEP)
PROGRESS_DONE = DISCORD.apply(said.PROGRESS_DONE)
PROGRESS_FAILED = DISCORD.apply(said.PROGRESS_FAILED)
PROGRESS_PAUSED = DISCORD.apply(said.PROGRESS_PAUSED)
TASK_MARK = {"in_progress": "\u23f3", "complete": "\u2705", "error": "\u274c"}
THREAD_NAME = "Atlas: {question}"
EMPTY_QUESTION = DISCORD.apply(said.EMPTY_QUESTION).format(bot="Atlas")
UNAVAILABLE = "\u26a0\ufe0f I can't take questions right now (my queue is unreachable). Please ask again in a minute."

SOURCES = DISCORD.apply(said.SOURCES)
FOOTER = "-# {steps} {step_word} · {tokens:,} tokens · ${cost:.4f} · stop: {reason}"
PARTIAL = DISCORD.apply(said.PARTIAL)
FAILED = DISCORD.apply(said.FAILED)
FEEDBACK_UP = DISCORD.apply(said.FEEDBACK_UP)
FEEDBACK_DOWN = DISCORD.apply(said.FEEDBACK_DOWN)
FEEDBACK_COUNT = "{label} ({count})"

APPROVAL_TITLE = {
    "add_labels": "\U0001f3f7\ufe0f **Atlas wants to add labels to an issue**",
    "post_comment": "\U0001f4ac **Atlas wants to comment on an issue**",
    "close_issue": "\U0001f512 **Atlas wants to close an issue**",
    "create_issue": "\U0001f4dd **Atlas wants to file a new issue**",
    "add_knowledge": "\U0001f4da **Atlas wants to keep this solved thread as knowledge**",
}
APPROVAL_TITLE_OTHER = DISCORD.apply(said.APPROVAL_TITLE_OTHER)
APPROVAL_ISSUE = DISCORD.apply(said.APPROVAL_ISSUE)
APPROVAL_LABELS = "**Labels to add:** {labels}"
APPROVAL_CURRENT_LABELS = DISCORD.apply(said.APPROVAL_CURRENT_LABELS)
APPROVAL_COMMENT = DISCORD.apply(said.APPROVAL_COMMENT)
APPROVAL_COMMENT_BELOW = "**Comment, exactly as it will be posted ({chars} characters, in full below):**"
APPROVAL_COMMENT_CUT = "\u26a0\ufe0f **{more} more characters are not shown: Discord can't hold them on one card.**"
APPROVAL_HIDDEN = DISCORD.apply(said.APPROVAL_HIDDEN)
APPROVAL_CLOSE = DISCORD.apply(said.APPROVAL_CLOSE)
APPROVAL_NEW_TITLE = DISCORD.apply(said.APPROVAL_NEW_TITLE)
APPROVAL_NEW_REPO = DISCORD.apply(said.APPROVAL_NEW_REPO)
APPROVAL_NEW_LABELS = "**Labels:** {labels}"
APPROVAL_SIMILAR = DISCORD.apply(said.APPROVAL_SIMILAR)
APPROVAL_SIMILAR_ONE = DISCORD.apply(said.APPROVAL_SIMILAR_ONE)
APPROVAL_DRAFTED_BY = {  # which made a "File as GitHub issue" draft (workers/runs/filing_record.py `drafted`)
    "model": "\U0001f916 **Drafted by the model** from this thread: check that it says what the thread says.",
    "thread": "\U0001f4c4 **Drafted from the thread's own words**, without a model.",
    "fallback": "\U0001f4c4 **Drafted from the thread's own words**: the model's draft failed.",
}
APPROVAL_REDACTED = DISCORD.apply(said.APPROVAL_REDACTED)
APPROVAL_LEFT_OUT = DISCORD.apply(said.APPROVAL_LEFT_OUT)
APPROVAL_NEW_BODY_BELOW = "**Body, exactly as it will be filed ({chars} characters, in full below):**"
APPROVAL_CLOSE_DUPLICATE = DISCORD.apply(said.APPROVAL_CLOSE_DUPLICATE)
APPROVAL_REASON = DISCORD.apply(said.APPROVAL_REASON)
APPROVAL_PROVENANCE = DISCORD.apply(said.APPROVAL_PROVENANCE)
APPROVAL_ASKED_BY = "-# Asked by <@{user}> · expires <t:{when}:f>"
APPROVAL_APPROVE = DISCORD.apply(said.APPROVAL_APPROVE)
APPROVAL_DENY = DISCORD.apply(said.APPROVAL_DENY)
APPROVAL_OUTCOME = {
    "approved": "\u2705 Approved by <@{user}> <t:{when}:f>",
    "denied": "\U0001f6ab Denied by <@{user}> <t:{when}:f>",
    "expired": "\u231b Expired <t:{when}:f>: nobody decided in time, so it did not run",
}
APPROVAL_RESULT_DONE = DISCORD.apply(said.APPROVAL_RESULT_DONE)
APPROVAL_RESULT_FAILED = DISCORD.apply(said.APPROVAL_RESULT_FAILED)
APPROVAL_RESULT_IN_DOUBT = DISCORD.apply(said.APPROVAL_RESULT_IN_DOUBT)
APPROVAL_IN_DOUBT_THREAD = (
    "\u26a0\ufe0f I was interrupted while running `{name}` on #{issue} after it was approved, or the tracker did not "
    "confirm it, so I can't tell whether it happened. I won't retry it. <@{user}>, please check the issue and redo it "
    "by hand if needed."
)
APPROVAL_NOT_ALLOWED = DISCORD.apply(said.APPROVAL_NOT_ALLOWED)
APPROVAL_ALREADY = DISCORD.apply(said.APPROVAL_ALREADY)
APPROVAL_GONE = DISCORD.apply(said.APPROVAL_GONE)
APPROVAL_ELSEWHERE = DISCORD.apply(said.APPROVAL_ELSEWHERE)
APPROVAL_UNCONFIRMED = DISCORD.apply(said.APPROVAL_UNCONFIRMED)
EPHEMERAL_UNAVAILABLE = DISCORD.apply(said.EPHEMERAL_UNAVAILABLE)
NO_LABEL_LEFT = "Keep at least one label, or Reject the labels."  # a triage card's label choice
EMPTY_REPLY = DISCORD.apply(said.TRIAGE_EMPTY_REPLY)
REPLY_EDITOR_TITLE = said.TRIAGE_REPLY_EDITOR  # the modal's title and its one field
REPLY_EDITOR_LABEL = "Reply (Atlas adds who approved it)"
EDIT_REPLY_BUTTON = "Edit reply"  # beside a reply's Approve and Reject
LABELS_PLACEHOLDER = "Labels to add"  # the label select, before a choice
QUEUED = "*Working on it...*"

USAGE = (
    "**Look things up without asking the model:**\n"
    "- `/{cmd} issue <number>`: one issue, e.g. `/{cmd} issue 42`\n"
    "- `/{cmd} search <words> [open|closed]`: search the issues\n"
    "- `/{cmd} docs <words>`: search the docs\n"
    "- `/{cmd} help`: this text\n"
    "To ask a question, mention the bot or use `/atlas ask`."
)
SHARE_BUTTON = DISCORD.apply(said.SHARE_BUTTON)
SHARED_BY = "-# Shared by <@{user}> with `/{cmd} {text}`"
LOOKUP_FAILED = DISCORD.apply(said.LOOKUP_FAILED)
UNKNOWN_COMMAND = "I don't know that command."

MARK_ANSWER_BUTTON = DISCORD.apply(
    said.MARK_ANSWER_BUTTON
)  # beside File as GitHub issue: the thread solved, drafted as knowledge

# The words of a run every platform shows (workers/wording.py), as the views take them from here.
HANDOFF = common.HANDOFF
FILE_ISSUE_BUTTON = common.FILE_ISSUE_BUTTON
steps_word = common.steps_word
