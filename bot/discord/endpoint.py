"""Wiring of the interactions endpoint for `atlas serve`: its Redis client and lookups, built once."""

from __future__ import annotations

from atlas.settings import Settings
from bot.discord.interactions import Interactions
from bot.fast_redis import bot_redis
from bot.lookups import Lookups


def endpoint(settings: Settings) -> Interactions:
    """The WSGI app `atlas serve` mounts at /discord/interactions."""
    return Interactions(settings, bot_redis(settings), Lookups.for_settings(settings))
