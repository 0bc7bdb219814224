"""The triage card's Edit modal on Slack, opened by the Edit button beside a reply's Approve and Reject (the card's
controls are drawn in bot/slack/views/triage.py). Their ids carry only the opaque pending id;
bot/slack/triage_edits.py records the choice (workers/approvals/revisions.py)."""

from __future__ import annotations

import json
from typing import Any

from bot.slack.views.triage import EDIT_ACTION as EDIT_ACTION
from bot.slack.views.triage import PICK_PREFIX as PICK_PREFIX
from workers.new_issues.choices import REPLY_MAX_CHARS

REPLY_CALLBACK = "atlas_triage_reply"  # the modal's callback id
REPLY_BLOCK, REPLY_INPUT = "atlas_reply", "body"
MODAL_TITLE = "Edit the reply"
MODAL_SAVE = "Save"
MODAL_CANCEL = "Cancel"
MODAL_LABEL = "Reply to post on the issue (Atlas adds who approved it)"


def reply_modal(body: str, pending_id: str, channel: str, ts: str) -> dict[str, Any]:
    """The Edit modal, prefilled with the reply as it stands; where the card is rides in private_metadata."""
    return {
        "type": "modal",
        "callback_id": REPLY_CALLBACK,
        "title": {"type": "plain_text", "text": MODAL_TITLE},
        "submit": {"type": "plain_text", "text": MODAL_SAVE},
        "close": {"type": "plain_text", "text": MODAL_CANCEL},
        "private_metadata": json.dumps({"pending_id": pending_id, "channel": channel, "ts": ts}),
        "blocks": [
            {
                "type": "input",
                "block_id": REPLY_BLOCK,
                "label": {"type": "plain_text", "text": MODAL_LABEL},
                "element": {
                    "type": "plain_text_input",
                    "action_id": REPLY_INPUT,
                    "multiline": True,
                    "initial_value": body,
                    "max_length": REPLY_MAX_CHARS,
                },
            }
        ],
    }
