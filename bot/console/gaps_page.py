"""placeholder"""

from __future__ import annotations

import redis

from atlas.settings import Settings
from bot.console.web import Request, Response


def render(conn: redis.Redis, settings: Settings, req: Request, prefix: str) -> tuple[str, str]:
    return "gaps", "<h1>gaps</h1>"


def csv_export(conn: redis.Redis, settings: Settings) -> Response:
    return Response(200, b"", "text/csv; charset=utf-8")
