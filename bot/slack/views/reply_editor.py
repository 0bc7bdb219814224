"""A triage card's reply editor (workers/messages/reply_editor.py) as the modal `views.open` shows: prefilled with the
reply as it stands; where the card is rides in `private_metadata`, so the submission finds it again."""

from __future__ import annotations

import json
from typing import Any

from bot.slack import wording
from workers.messages.reply_editor import ReplyEditor

REPLY_CALLBACK = "atlas_triage_reply"  # the modal's callback id
REPLY_BLOCK, REPLY_INPUT = "atlas_reply", "body"


def reply_modal(editor: ReplyEditor, channel: str, ts: str) -> dict[str, Any]:
    """The modal's view; `channel` and `ts` are the card's message."""
    return {
        "type": "modal",
        "callback_id": REPLY_CALLBACK,
        "title": {"type": "plain_text", "text": wording.REPLY_EDITOR_TITLE},
        "submit": {"type": "plain_text", "text": wording.REPLY_EDITOR_SAVE},
        "close": {"type": "plain_text", "text": wording.REPLY_EDITOR_CANCEL},
        "private_metadata": json.dumps({"pending_id": editor.pending_id, "channel": channel, "ts": ts}),
        "blocks": [
            {
                "type": "input",
                "block_id": REPLY_BLOCK,
                "label": {"type": "plain_text", "text": wording.REPLY_EDITOR_LABEL},
                "element": {
                    "type": "plain_text_input",
                    "action_id": REPLY_INPUT,
                    "multiline": True,
                    "initial_value": editor.body,
                    "max_length": editor.limit,
                },
            }
        ],
    }
