"""The triage card's controls beside Approve and Reject on Discord, from the card's value: a string select (several
values) to drop some of the offered labels, an Edit button opening a modal with the reply (the reply editor,
workers/messages/reply_editor.py). Their custom ids carry only the opaque pending id; bot/discord/triage_edits.py
records the choice (workers/approvals/revisions.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.discord import wording
from workers.approvals.visible_text import reveal
from workers.messages.reply_editor import ReplyEditor
from workers.messages.triage import TriageItem

PICK_PREFIX = "atlas_triage_pick:"  # + pending id: the labels' select
EDIT_PREFIX = "atlas_triage_edit:"  # + pending id: the reply's Edit button
MODAL_PREFIX = "atlas_triage_reply:"  # + pending id: the modal
ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
BUTTON_SECONDARY = 2
PARAGRAPH = 2  # a text input's multi-line style
REPLY_INPUT = "body"  # the modal's text input
MAX_OPTIONS = 25  # Discord's limit for a select


@dataclass
class Controls:
    """A select needs a row of its own; a button joins the action's Approve and Reject."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    buttons: list[dict[str, Any]] = field(default_factory=list)


def components(item: TriageItem, pending_id: str) -> Controls:
    """The controls of one pending action: the offered labels with the chosen ones as defaults; Edit for a reply."""
    if item.kind == "labels":
        picked = set(item.chosen)
        options = [{"label": reveal(n)[:100], "value": n, "default": n in picked} for n in item.offered[:MAX_OPTIONS]]
        select = {
            "type": STRING_SELECT,
            "custom_id": PICK_PREFIX + pending_id,
            "options": options,
            "placeholder": wording.LABELS_PLACEHOLDER,
            "min_values": 1,
            "max_values": len(options),
        }
        return Controls(rows=[{"type": ACTION_ROW, "components": [select]}])
    if item.kind == "reply" and item.editable:
        return Controls(
            buttons=[
                {
                    "type": BUTTON,
                    "style": BUTTON_SECONDARY,
                    "label": wording.EDIT_REPLY_BUTTON,
                    "custom_id": EDIT_PREFIX + pending_id,
                }
            ]
        )
    return Controls()


def reply_modal(editor: ReplyEditor) -> dict[str, Any]:
    """The modal's data (interaction response type 9), prefilled with the reply as it stands."""
    field = {
        "type": TEXT_INPUT,
        "custom_id": REPLY_INPUT,
        "style": PARAGRAPH,
        "label": wording.REPLY_EDITOR_LABEL,
        "value": editor.body,
        "min_length": 1,
        "max_length": editor.limit,
        "required": True,
    }
    return {
        "custom_id": MODAL_PREFIX + editor.pending_id,
        "title": wording.REPLY_EDITOR_TITLE,
        "components": [{"type": ACTION_ROW, "components": [field]}],
    }
