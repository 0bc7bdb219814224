"""A click on "File as GitHub issue" under an answer: verify (Bolt), claim the answer, queue its filing run, ack.

Anyone in the thread may ask for the draft; only an approver's click on its card files it (the gate). One
filing per answer: a second or redelivered click is told the draft was already asked for and queues
nothing (workers/followup/filing.py). A click from another channel than the answer's changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from slack_bolt import Ack, App

from bot.slack.deps import Deps
from bot.slack.ephemeral import tell_clicker
from bot.slack.views.answer import FILE_ISSUE_ACTION
from bot.slack.views.filing import filing_click_text
from workers.errors import RunNotFound
from workers.followup import filing_claim as filing
from workers.messages.filing import FilingClick
from workers.runs.store import RunStore

log = logging.getLogger("atlas.bot.slack.file_issue")


def register(app: App, deps: Deps) -> None:
    app.action(FILE_ISSUE_ACTION)(on_click(deps))


def on_click(deps: Deps) -> Any:
    def handle_file_issue(ack: Ack, action: dict[str, Any], body: dict[str, Any]) -> None:
        ack()
        user = str((body.get("user") or {}).get("id") or "")
        run_id = str(action.get("value") or "")
        channel = str((body.get("container") or {}).get("channel_id") or (body.get("channel") or {}).get("id") or "")
        try:
            source = RunStore(deps.redis).load(run_id)
        except (RunNotFound, ValueError):
            tell_clicker(deps, body, user, filing_click_text(FilingClick("nothing")))
            return
        except redis.RedisError as exc:
            log.warning("file-issue click not recorded: %s", type(exc).__name__)
            tell_clicker(deps, body, user, filing_click_text(FilingClick("unavailable")))
            return
        if source.origin.kind != "slack" or source.origin.channel != channel or not user:
            log.warning("file-issue click by %s on run %s refused: not from the answer's channel", user, run_id[:40])
            return
        try:
            run, started = filing.start(deps.redis, deps.settings.queue_name, source, user)
        except redis.RedisError as exc:
            log.warning("file-issue click not recorded: %s", type(exc).__name__)
            tell_clicker(deps, body, user, filing_click_text(FilingClick("unavailable")))
            return
        log.info(
            "file-issue click by %s on run %s: filing run %s %s",
            user,
            source.id,
            run,
            "started" if started else "already claimed",
        )
        said = FilingClick("drafting" if started else "already")
        tell_clicker(deps, body, user, filing_click_text(said))

    return handle_file_issue
