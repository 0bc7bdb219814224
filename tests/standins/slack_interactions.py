"""What Slack sends when a person uses the app's controls: a slash command (a form body) and interactivity
payloads, a button's `block_actions` and a modal's `view_submission`, with the fields Atlas reads. Post them
with tests/standins/slack_events.py's `SlackSender` (`form`, `interaction`)."""

from __future__ import annotations

import time
from typing import Any

from tests.standins.slack_api import TEAM


def command(
    text: str,
    *,
    name: str = "/orbit",
    user: str = "U0ALICE",
    channel: str = "C0GENERAL",
    response_url: str = "http://127.0.0.1:9/unused",
) -> dict[str, str]:
    """A slash command invocation (form-encoded)."""
    return {
        "token": "legacy-verification-token",
        "team_id": TEAM,
        "team_domain": "atlas-test",
        "channel_id": channel,
        "channel_name": "general",
        "user_id": user,
        "user_name": "alice",
        "command": name,
        "text": text,
        "api_app_id": "A0ATLAS",
        "response_url": response_url,
        "trigger_id": "1.2.3",
    }


def block_action(
    action_id: str,
    value: str,
    *,
    user: str = "U0ALICE",
    channel: str = "C0GENERAL",
    message_ts: str = "1700000000.000001",
    thread_ts: str | None = None,
    response_url: str = "http://127.0.0.1:9/unused",
    ephemeral: bool = False,
    action_type: str = "button",
) -> dict[str, Any]:
    """A `block_actions` interaction payload for one clicked element."""
    container: dict[str, Any] = {
        "type": "message",
        "message_ts": message_ts,
        "channel_id": channel,
        "is_ephemeral": ephemeral,
    }
    if thread_ts:
        container["thread_ts"] = thread_ts
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "alice", "team_id": TEAM},
        "api_app_id": "A0ATLAS",
        "token": "legacy-verification-token",
        "container": container,
        "trigger_id": "1.2.3",
        "team": {"id": TEAM, "domain": "atlas-test"},
        "channel": {"id": channel, "name": "general"},
        "response_url": response_url,
        "actions": [
            {
                "action_id": action_id,
                "block_id": "b1",
                "type": action_type,
                "value": value,
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }


def view_submission(
    view: dict[str, Any], values: dict[str, dict[str, str]], *, user: str = "U0ALICE"
) -> dict[str, Any]:
    """A `view_submission` payload for a modal as views.open opened it; `values`: block id -> action id -> text."""
    state = {
        block: {action: {"type": "plain_text_input", "value": text} for action, text in inputs.items()}
        for block, inputs in values.items()
    }
    return {
        "type": "view_submission",
        "team": {"id": TEAM, "domain": "atlas-test"},
        "user": {"id": user, "username": "alice", "name": "alice", "team_id": TEAM},
        "api_app_id": "A0ATLAS",
        "token": "legacy-verification-token",
        "trigger_id": "1.2.4",
        "view": {**view, "team_id": TEAM, "state": {"values": state}, "hash": "1700000000.abc", "app_id": "A0ATLAS"},
        "response_urls": [],
        "is_enterprise_install": False,
    }
