"""Who may approve on Discord: the configured user ids and/or members of the configured role; with
neither configured, the server's owner and members with Manage Server (or Administrator).

Decided from the interaction's own `member` object (its roles, and `permissions`, which Discord
computes for the clicker in that channel: the owner has them all), so no extra API call is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5


@dataclass(frozen=True)
class DiscordPolicy:
    """The approver rule for Discord, built from settings at the entry point."""

    users: frozenset[str] = frozenset()
    role: str | None = None

    @classmethod
    def from_settings(cls, settings: Any) -> DiscordPolicy:
        return cls(frozenset(settings.discord_approvers), settings.discord_approver_role)

    def may_decide(self, interaction: dict[str, Any]) -> bool:
        """True if the clicker of this interaction may approve or deny."""
        member = interaction.get("member") or {}
        user = str(((member.get("user") or interaction.get("user")) or {}).get("id") or "")
        if not user:
            return False
        if self.users or self.role:
            return user in self.users or (self.role is not None and self.role in (member.get("roles") or []))
        try:
            permissions = int(member.get("permissions") or 0)
        except ValueError:
            return False
        return bool(permissions & (ADMINISTRATOR | MANAGE_GUILD))
