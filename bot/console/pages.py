"""Which page answers which path (behind a session: bot/console/app.py checked it)."""

from __future__ import annotations

from collections.abc import Callable

import redis

from atlas.settings import Settings
from bot.console import runs_page
from bot.console.layout import page
from bot.console.sessions import Session
from bot.console.web import Request, Response
from workers.console_data import index_filing

Page = Callable[[redis.Redis, Settings, Request, str], tuple[str, str]]


def _pages() -> dict[str, tuple[str, Page]]:
    """Path -> (navigation slug, page); imported late so each page's module loads once, when first used."""
    from bot.console import approvals_page, gaps_page, health_page, triage_page, usage_page

    return {
        "/runs": ("runs", lambda conn, settings, req, prefix: runs_page.listing_page(conn, req, prefix)),
        "/health": ("health", health_page.render),
        "/usage": ("usage", usage_page.render),
        "/gaps": ("gaps", gaps_page.render),
        "/approvals": ("approvals", approvals_page.render),
        "/triage": ("triage", triage_page.render),
    }


def route(conn: redis.Redis, settings: Settings, req: Request, session: Session, prefix: str) -> Response:
    """The page at `req.path`, or 404. Runs whose filing is still pending are filed first
    (workers/console_data/index_filing.py), so a page never lags the runs saved before it (two commands when nothing is
    pending)."""
    index_filing.flush(conn)
    if req.path == "/gaps.csv":
        from bot.console.gaps_page import csv_export

        return csv_export(conn, settings)
    if req.path.startswith("/runs/"):
        found = runs_page.run_page(conn, req.path.removeprefix("/runs/"), prefix)
        if found is None:
            return Response.page(
                page(
                    "Not found",
                    "<h1>No such run</h1><p>It may have expired (runs are kept 30 days).</p>",
                    prefix=prefix,
                    session=session,
                    current="runs",
                ),
                404,
            )
        return Response.page(page(*found, prefix=prefix, session=session, current="runs"))
    if req.path == "/knowledge":  # its Forget buttons carry the session's CSRF token
        from bot.console import knowledge_page

        return Response.page(
            page(*knowledge_page.render(conn, session, prefix), prefix=prefix, session=session, current="knowledge")
        )
    known = _pages().get(req.path)
    if known is None:
        return Response.page(page("Not found", "<h1>Not found</h1>", prefix=prefix, session=session), 404)
    slug, render = known
    refused = runs_page.bad_query(req) if req.path == "/runs" else None
    if refused:
        return Response.plain(refused + "\n", 400)
    title, body = render(conn, settings, req, prefix)
    return Response.page(page(title, body, prefix=prefix, session=session, current=slug))
