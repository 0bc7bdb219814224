"""The workspace's people as the Slack stand-in shows them: users.info's `user` object, and who a message in
conversations.replies or .history is from (a person's has their `user`; the bot's its `bot_id` and bot user)."""

from __future__ import annotations

from typing import Any


def member(user: str, team: str, *, admin: bool, owner: bool, primary_owner: bool, deleted: bool) -> dict[str, Any]:
    """users.info's `user` with Slack's role flags (a primary owner is also an owner and an admin)."""
    owner = owner or primary_owner
    return {
        "id": user,
        "team_id": team,
        "name": user.lower(),
        "deleted": deleted,
        "is_bot": False,
        "is_admin": admin or owner,
        "is_owner": owner,
        "is_primary_owner": primary_owner,
        "is_restricted": False,
        "is_ultra_restricted": False,
        "is_app_user": False,
    }


def author(message: dict[str, Any]) -> dict[str, str]:
    """Who a kept message is from, as Slack says it: a person's (`SlackAPI.said`) or the bot's, as an app's are."""
    if message.get("person"):
        return {"user": str(message["person"])}
    return {"bot_id": "BATLAS", "user": "UATLAS"}
