"""A click on "File as GitHub issue" under a Discord answer: claim the answer and queue its filing run
(workers/followup/filing.py), answered with a note only the clicker sees. One filing per answer; a click
from another channel or thread than the answer's changes nothing."""

from __future__ import annotations

import logging
from typing import Any

import redis

from bot.discord.replies import Reply, ephemeral
from bot.discord.views.filing import filing_click_text
from workers.errors import RunNotFound
from workers.followup import filing_claim as filing
from workers.followup.subscriptions import place_of
from workers.messages.filing import FilingClick
from workers.runs.store import RunStore

log = logging.getLogger("atlas.bot.discord.file_issue")


def click(
    conn: redis.Redis, queue_name: str, payload: dict[str, Any], run_id: str, repos: tuple[str, ...] = ()
) -> Reply:
    """The interaction's reply; Redis errors are the caller's (it answers them as every click). `repos`: those
    served, so an answer about none of several is not filed in a guessed one (issue 38)."""
    user = str(((payload.get("member") or {}).get("user") or payload.get("user") or {}).get("id") or "")
    try:
        source = RunStore(conn).load(run_id)
    except (RunNotFound, ValueError):
        return ephemeral(filing_click_text(FilingClick("nothing")))
    place = place_of(source)
    if (
        source.origin.kind != "discord"
        or place is None
        or str(payload.get("channel_id") or "") not in (place.channel, source.origin.channel)
    ):
        log.warning("file-issue click by %s on run %s refused: not from the answer's thread", user, run_id[:40])
        return ephemeral(filing_click_text(FilingClick("nothing")))
    try:
        repo = filing.repository_of(repos, source)
    except filing.WhichRepository as which:
        return ephemeral(filing_click_text(FilingClick("which_repo", which.repos)))
    filing_run, started = filing.start(conn, queue_name, source, user, repo)
    log.info(
        "file-issue click by %s on run %s: filing run %s %s",
        user,
        source.id,
        filing_run,
        "started" if started else "already claimed",
    )
    return ephemeral(filing_click_text(FilingClick("drafting" if started else "already")))
