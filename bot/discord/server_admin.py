"""Who is a server admin on Discord, from the Gateway's cache: the maintainers when none are configured, for
help channels (bot/discord/gateway.py) and a ✅ on an answer (bot/discord/reaction_solved.py)."""

from __future__ import annotations

import hikari


def server_admin(
    cache: hikari.api.Cache | None,
    guild_id: hikari.Snowflake,
    user: hikari.Snowflake,
    roles: tuple[hikari.Snowflake, ...],
) -> bool:
    """The server's owner, or a member with a role that has Manage Server or Administrator (from the Gateway's
    cache: the approvers when none are configured, bot/discord/approvers.py)."""
    if cache is None:
        return False
    guild = cache.get_guild(guild_id)
    if guild is not None and guild.owner_id == user:
        return True
    wanted = hikari.Permissions.ADMINISTRATOR | hikari.Permissions.MANAGE_GUILD
    return any((role := cache.get_role(r)) is not None and role.permissions & wanted for r in roles)
