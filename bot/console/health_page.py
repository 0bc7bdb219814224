"""placeholder"""

from __future__ import annotations

import redis

from atlas.settings import Settings
from bot.console.web import Request


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    return "health", "<h1>health</h1>"
