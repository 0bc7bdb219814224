"""The triage card's controls beside Approve and Reject on Slack: checkboxes to drop some of the offered
labels, an Edit button opening a modal with the reply. Their ids carry only the opaque pending id;
bot/slack/triage_edits.py records the choice (workers/approvals/revisions.py)."""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.models.blocks import ButtonElement, CheckboxesElement, Option, PlainTextObject

from workers.approvals.visible_text import reveal
from workers.new_issues.choices import REPLY_MAX_CHARS
from workers.runs.triage_record import TriageAction

PICK_PREFIX = "atlas_triage_pick:"  # + pending id: the labels' checkboxes
EDIT_ACTION = "atlas_triage_edit"  # value: the pending id
REPLY_CALLBACK = "atlas_triage_reply"  # the modal's callback id
REPLY_BLOCK, REPLY_INPUT = "atlas_reply", "body"
MAX_OPTIONS = 10  # Slack's limit for checkboxes
EDIT = "Edit"
MODAL_TITLE = "Edit the reply"
MODAL_SAVE = "Save"
MODAL_CANCEL = "Cancel"
MODAL_LABEL = "Reply to post on the issue (Atlas adds who approved it)"


def elements(offered: TriageAction, chosen: TriageAction, pending_id: str) -> list[Any]:
    """The controls of one pending action: the offered labels with the chosen ones ticked; Edit for a reply."""
    if offered.tool == "add_labels":
        options = {
            n: Option(value=n, text=PlainTextObject(text=reveal(n)))
            for n in (offered.arguments.get("labels") or [])[:MAX_OPTIONS]
        }
        ticked = [options[n] for n in chosen.arguments.get("labels") or [] if n in options]
        return [
            CheckboxesElement(
                action_id=PICK_PREFIX + pending_id, options=list(options.values()), initial_options=ticked or None
            )
        ]
    if offered.tool == "post_comment" and len(str(chosen.arguments.get("body") or "")) <= REPLY_MAX_CHARS:
        return [ButtonElement(text=PlainTextObject(text=EDIT), action_id=EDIT_ACTION, value=pending_id)]
    return []


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
