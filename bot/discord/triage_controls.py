"""The triage card's controls beside Approve and Reject on Discord: a string select (several values) to
drop some of the offered labels, an Edit button opening a modal with the reply. Their custom ids carry
only the opaque pending id; bot/discord/triage_edits.py records the choice (workers/approvals/revisions.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workers.approvals.visible_text import reveal
from workers.new_issues.choices import REPLY_MAX_CHARS
from workers.runs.triage_record import TriageAction

PICK_PREFIX = "atlas_triage_pick:"  # + pending id: the labels' select
EDIT_PREFIX = "atlas_triage_edit:"  # + pending id: the reply's Edit button
MODAL_PREFIX = "atlas_triage_reply:"  # + pending id: the modal
REPLY_INPUT = "body"
ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
BUTTON_SECONDARY, PARAGRAPH = 2, 2
MAX_OPTIONS = 25  # Discord's limit for a select
EDIT = "Edit reply"
PLACEHOLDER = "Labels to add"
MODAL_TITLE = "Edit the reply"
MODAL_LABEL = "Reply (Atlas adds who approved it)"


@dataclass
class Controls:
    """A select needs a row of its own; a button joins the action's Approve and Reject."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    buttons: list[dict[str, Any]] = field(default_factory=list)


def components(offered: TriageAction, chosen: TriageAction, pending_id: str) -> Controls:
    """The controls of one pending action: the offered labels with the chosen ones as defaults; Edit for a reply."""
    if offered.tool == "add_labels":
        names = [str(n) for n in offered.arguments.get("labels") or []][:MAX_OPTIONS]
        picked = set(chosen.arguments.get("labels") or [])
        options = [{"label": reveal(n)[:100], "value": n, "default": n in picked} for n in names]
        return Controls(
            rows=[
                {
                    "type": ACTION_ROW,
                    "components": [
                        {
                            "type": STRING_SELECT,
                            "custom_id": PICK_PREFIX + pending_id,
                            "options": options,
                            "placeholder": PLACEHOLDER,
                            "min_values": 1,
                            "max_values": len(options),
                        }
                    ],
                }
            ]
        )
    if offered.tool == "post_comment" and len(str(chosen.arguments.get("body") or "")) <= REPLY_MAX_CHARS:
        return Controls(
            buttons=[{"type": BUTTON, "style": BUTTON_SECONDARY, "label": EDIT, "custom_id": EDIT_PREFIX + pending_id}]
        )
    return Controls()


def reply_modal(body: str, pending_id: str) -> dict[str, Any]:
    """The modal's data (interaction response type 9), prefilled with the reply as it stands."""
    return {
        "custom_id": MODAL_PREFIX + pending_id,
        "title": MODAL_TITLE,
        "components": [
            {
                "type": ACTION_ROW,
                "components": [
                    {
                        "type": TEXT_INPUT,
                        "custom_id": REPLY_INPUT,
                        "style": PARAGRAPH,
                        "label": MODAL_LABEL,
                        "value": body,
                        "min_length": 1,
                        "max_length": REPLY_MAX_CHARS,
                        "required": True,
                    }
                ],
            }
        ],
    }


def submitted_text(data: dict[str, Any]) -> str:
    """The reply typed into the modal, from a MODAL_SUBMIT's data."""
    for row in data.get("components") or []:
        for part in row.get("components") or []:
            if part.get("custom_id") == REPLY_INPUT:
                return str(part.get("value") or "")
    return ""
