"""Who may sign in with Slack: a member of the bot's own workspace who is an approver (the same rule as
approval clicks: ATLAS_APPROVERS, ATLAS_APPROVER_GROUP, else the workspace's admins and owners) or a member
of ATLAS_CONSOLE_GROUP. Asked of Slack with the bot token (users.info, usergroups.users.list, cached a
minute as for clicks); a lookup that fails admits nobody.
"""

from __future__ import annotations

from dataclasses import replace

from atlas.settings import Settings
from workers.approvals.approvers import Directory, Policy, may_decide


def may_see(user: str, team: str, workspace: str, settings: Settings, directory: Directory) -> bool:
    """True if this Slack user may see the console."""
    if not user or not team or team != workspace:
        return False
    policy = replace(Policy.from_settings(settings), asker_may_approve=False)
    if may_decide(user, "", policy, directory):
        return True
    group = settings.console.group
    return bool(group) and user in directory.members(group or "")
