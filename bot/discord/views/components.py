"""The message components Atlas sends on Discord and reads back: button styles, and the prefixes of the custom ids
its buttons carry. Rendering writes them (bot/discord/views/); the interactions endpoint parses a click by them.
"""

from __future__ import annotations

APPROVE_PREFIX = "atlas_approval_approve:"
DENY_PREFIX = "atlas_approval_deny:"
FEEDBACK_PREFIX = "atlas_feedback:"
SHARE_PREFIX = "atlas_share:"
MARK_ANSWER_PREFIX = "atlas_mark_answer:"  # "Mark as answer": the thread solved, drafted as knowledge (solved.py)
FILE_ISSUE_PREFIX = "atlas_file_issue:"  # "File as GitHub issue" beside the feedback buttons (workers/followup)
BUTTON_PRIMARY, BUTTON_SECONDARY, BUTTON_SUCCESS, BUTTON_DANGER = 1, 2, 3, 4
