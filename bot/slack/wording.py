"""Every sentence a Slack user reads from Atlas that is Slack's own: statuses, progress, cards, buttons, lookups.

The words of a run that every platform shows (offline answers, failures, tool-call titles) are in workers/wording.py."""

from __future__ import annotations

from workers.messages import wording as said

SLACK = said.Markup(
    em="_",
    strong="*",  # fills the neutral sentences' markup slots
    icons={
        "warning": ":warning:",
        "no_entry": ":no_entry:",
        "lock": ":lock:",
        "done": ":white_check_mark:",
        "failed": ":x:",
        "raised_hand": ":raised_hand:",
    },
)
# Text inside an element Slack styles itself (a title bolded by its section, an italic rich-text run): no marks.
SLACK_STYLED = said.Markup(em="", strong="", icons=SLACK.icons)

# --- mentions and DMs -------------------------------------------------------------------------
WORKING_STATUS = "is looking into it..."
LOADING_MESSAGES = ["Searching the docs...", "Searching the issues...", "Reading what it found..."]
QUESTION_CUT = (
    ":scissors: Your question is longer than {limit:,} characters, so I read only its first {limit:,}. "
    "If the part that matters came later, ask again with just that part."
)
EMPTY_QUESTION = SLACK.apply(said.EMPTY_QUESTION).format(bot="atlas")
UNAVAILABLE = (
    ":warning: I can't take questions right now (my queue is unreachable). Slack resends your message for a few "
    "minutes and I'll answer it if I'm back by then; if there is no answer here, please ask again."
)
KEPT_FOR_LATER = (
    ":hourglass: My queue is unreachable right now, so I've kept your question and will answer it in this thread "
    "as soon as it is back; no need to ask again."
)
EPHEMERAL_UNAVAILABLE = SLACK.apply(said.EPHEMERAL_UNAVAILABLE)
# --- the assistant view (bot/slack/assistant.py, bot/slack/assistant_reporter.py) -------------------------
ASSISTANT_GREETING_NO_PROMPTS = (
    "Hi! Ask me anything about the project: I search its docs and issues, show what I looked at, "
    "and answer with sources."
)
ASSISTANT_GREETING = ASSISTANT_GREETING_NO_PROMPTS + " Try one of these, or type your own question."
ASSISTANT_PROMPTS_TITLE = "Try asking"
ASSISTANT_STATUS_THINKING = "is thinking..."
ASSISTANT_STATUS = {
    "search_issues": "is searching issues...",
    "get_issue": "is reading an issue...",
    "search_docs": "is searching the docs...",
    "get_doc_section": "is reading the docs...",
    "read_more": "is reading more of a result...",
}
ASSISTANT_STATUS_OTHER = "is working on it..."
# --- progress ----------------------------------------------------------------------------------
PROGRESS_START = SLACK.apply(said.PROGRESS_START)
PROGRESS_STEP = SLACK.apply(said.PROGRESS_STEP)
PROGRESS_DONE = SLACK.apply(said.PROGRESS_DONE)
PROGRESS_FAILED = SLACK.apply(said.PROGRESS_FAILED)
PROGRESS_PAUSED = SLACK.apply(said.PROGRESS_PAUSED)
PROGRESS_STOPPED = "_Stopped, as you asked. Mention me again to ask anew._"
PROGRESS_ANSWER_UNDELIVERED = "_Finished, but Slack would not take the answer._"
ANSWER_UNDELIVERED = (
    ":warning: I finished this question, but Slack kept failing for {minutes} {minute_word} when I posted the answer, "
    "so it is not in this thread. The answer is kept: a maintainer can show it with `atlas runs show {run_id}`."
)
TRIAGE_CARD_UNDELIVERED = (
    ":warning: Slack kept failing for {minutes} {minute_word} when I posted the triage card for issue #{issue}, "
    "so it is not here and nothing was changed. `atlas triage {issue} --post` posts it again "
    "(`atlas runs show {run_id}`)."
)
CARDS_UNDELIVERED = (
    ":warning: I proposed {count} action(s) that need a maintainer's approval, but Slack kept failing for {minutes} "
    "{minute_word} when I posted the approval cards, so there is nothing here to click and nothing was changed. "
    "The proposals are kept (`atlas runs show {run_id}`); ask again to get new cards."
)
TASK_MARK = {"in_progress": ":hourglass_flowing_sand:", "complete": ":white_check_mark:", "error": ":x:"}
# --- the answer --------------------------------------------------------------------------------
SOURCES = SLACK.apply(said.SOURCES)
FOOTER = "{steps} {step_word} · {tokens:,} tokens · ${cost:.4f} · stop: {reason}"
PARTIAL = SLACK.apply(said.PARTIAL)
PARTIAL_MARKDOWN = said.Markup(em="*", strong="**", icons=SLACK.icons).apply(said.PARTIAL)  # streamed
FAILED = SLACK.apply(said.FAILED)
FEEDBACK_UP = SLACK.apply(said.FEEDBACK_UP)
FEEDBACK_DOWN = SLACK.apply(said.FEEDBACK_DOWN)
FEEDBACK_UP_LABEL = "Mark this answer as helpful"  # read by screen readers (at most 75 characters)
FEEDBACK_DOWN_LABEL = "Mark this answer as not helpful"
FEEDBACK_SAVED = {
    "up": "Thanks, noted that this helped.",
    "down": "Thanks, noted that this missed.",
    None: "Feedback removed.",
}
# --- the slash command -------------------------------------------------------------------------
USAGE = (
    "*Look things up without asking the model:*\n"
    "• `{cmd} issue <number>`: one issue, e.g. `{cmd} issue 42`\n"
    "• `{cmd} search <words> [open|closed]`: search the issues, e.g. `{cmd} search redis timeout open`\n"
    "• `{cmd} docs <words>`: search the docs, e.g. `{cmd} docs lease_seconds`\n"
    "• `{cmd} help`: this text\n"
    "To ask a question, mention the bot in a channel or send it a direct message."
)
LOOKUP_FAILED = SLACK.apply(said.LOOKUP_FAILED)
SHARE_BUTTON = SLACK.apply(said.SHARE_BUTTON)
SHARED_BY = "Shared by <@{user}> with `{cmd} {text}`"
# --- approvals (bot/slack/cards.py, bot/slack/approvals.py) ------------------------------------
APPROVAL_TITLE = {
    "add_labels": ":label: Atlas wants to add labels to an issue",
    "post_comment": ":speech_balloon: Atlas wants to comment on an issue",
    "close_issue": ":lock: Atlas wants to close an issue",
    "create_issue": ":memo: Atlas wants to file a new issue",
    "add_knowledge": ":books: Atlas wants to keep this solved thread as knowledge",
}
APPROVAL_TITLE_OTHER = SLACK_STYLED.apply(said.APPROVAL_TITLE_OTHER)
APPROVAL_FALLBACK_TEXT = "Approval needed: {name} on #{issue}"
APPROVAL_FALLBACK_NEW = "Approval needed: {name}"
APPROVAL_NEW_TITLE = SLACK.apply(said.APPROVAL_NEW_TITLE)
APPROVAL_NEW_REPO = SLACK.apply(said.APPROVAL_NEW_REPO)
APPROVAL_NEW_LABELS = "Labels:"
APPROVAL_NEW_BODY = "*Body, exactly as it will be filed:*"
APPROVAL_SIMILAR = SLACK.apply(said.APPROVAL_SIMILAR)
APPROVAL_SIMILAR_ONE = SLACK.apply(said.APPROVAL_SIMILAR_ONE)
APPROVAL_DRAFTED_BY = {  # which made a "File as GitHub issue" draft (workers/runs/filing_record.py `drafted`)
    "model": ":robot_face: *Drafted by the model* from this thread: check that it says what the thread says.",
    "thread": ":page_facing_up: *Drafted from the thread's own words*, without a model.",
    "fallback": ":page_facing_up: *Drafted from the thread's own words*: the model's draft failed.",
}
APPROVAL_REDACTED = SLACK.apply(said.APPROVAL_REDACTED)
APPROVAL_LEFT_OUT = SLACK.apply(said.APPROVAL_LEFT_OUT)
APPROVAL_ISSUE = SLACK.apply(said.APPROVAL_ISSUE)
APPROVAL_LABELS = "Labels to add:"
APPROVAL_CURRENT_LABELS = SLACK.apply(said.APPROVAL_CURRENT_LABELS)
APPROVAL_COMMENT = SLACK.apply(said.APPROVAL_COMMENT)
APPROVAL_CLOSE = SLACK.apply(said.APPROVAL_CLOSE)
APPROVAL_CLOSE_DUPLICATE = SLACK.apply(said.APPROVAL_CLOSE_DUPLICATE)
APPROVAL_REASON = SLACK_STYLED.apply(said.APPROVAL_REASON)
APPROVAL_ASKED_BY = "Asked by <@{user}> · expires {when}"
APPROVAL_PROVENANCE = SLACK.apply(said.APPROVAL_PROVENANCE)
APPROVAL_HIDDEN = SLACK.apply(said.APPROVAL_HIDDEN)
APPROVAL_APPROVE = SLACK.apply(said.APPROVAL_APPROVE)
APPROVAL_DENY = SLACK.apply(said.APPROVAL_DENY)
APPROVAL_CONFIRM_TITLE = "Run this action?"
APPROVAL_CONFIRM_TEXT = "Atlas will make this change in the tracker."
APPROVAL_CONFIRM_YES = "Approve"
APPROVAL_CONFIRM_NO = "Cancel"
APPROVAL_OUTCOME = {
    "approved": ":white_check_mark: Approved by <@{user}> {when}",
    "denied": ":no_entry_sign: Denied by <@{user}> {when}",
    "expired": ":hourglass: Expired {when}: nobody decided in time, so it did not run",
}
APPROVAL_RESULT_DONE = SLACK.apply(said.APPROVAL_RESULT_DONE)
APPROVAL_RESULT_FAILED = SLACK.apply(said.APPROVAL_RESULT_FAILED)
APPROVAL_RESULT_IN_DOUBT = SLACK.apply(said.APPROVAL_RESULT_IN_DOUBT)
APPROVAL_IN_DOUBT_THREAD = (
    ":warning: I was interrupted while running `{name}` on #{issue} after it was approved, or the tracker did not "
    "confirm it, so I can't tell whether it happened. I won't retry it. <@{user}>, please check the issue{link} and "
    "redo it by hand if needed."
)
APPROVAL_NOT_ALLOWED = SLACK.apply(said.APPROVAL_NOT_ALLOWED)
APPROVAL_ALREADY = SLACK.apply(said.APPROVAL_ALREADY)
APPROVAL_GONE = SLACK.apply(said.APPROVAL_GONE)
APPROVAL_ELSEWHERE = SLACK.apply(said.APPROVAL_ELSEWHERE)
# A click whose decision script was sent but not answered: it may have been recorded, or not.
APPROVAL_UNCONFIRMED = SLACK.apply(said.APPROVAL_UNCONFIRMED)
EDIT_EXPIRED = (
    "Slack gave up on opening the reply editor: it must open within 3 seconds of the click, and that "
    "passed. Click Edit again."
)
EDIT_FAILED = "Slack could not open the reply editor just now. Click Edit again in a moment."
NO_LABEL_LEFT = "Keep at least one label ticked, or Reject the labels."  # a triage card's label choice
EMPTY_REPLY = SLACK.apply(said.TRIAGE_EMPTY_REPLY)
EDIT_REPLY_BUTTON = "Edit"  # beside a reply's Approve and Reject on a triage card
REPLY_EDITOR_TITLE = said.TRIAGE_REPLY_EDITOR  # the modal's title, save and cancel buttons and its one field
REPLY_EDITOR_SAVE = "Save"
REPLY_EDITOR_CANCEL = "Cancel"
REPLY_EDITOR_LABEL = "Reply to post on the issue (Atlas adds who approved it)"

MARK_ANSWER_BUTTON = SLACK.apply(
    said.MARK_ANSWER_BUTTON
)  # under an answer: the thread is solved, drafted as knowledge (bot/slack/solved.py)
