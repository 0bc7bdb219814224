"""A maintainer who acts on an issue before anyone clicks ends its card: closed, labelled or answered
on GitHub, the card says so and its buttons go (its pending approvals expire).

The webhook job (workers/jobs/github.py) calls `acted` for `issues.closed`, `issues.labeled` (not a bot's),
`issues.transferred`, `issues.deleted` and an `issue_comment` by someone with write access (writers.py).
Atlas's own writes (an approved action of this run)
arrive as webhooks too and are not taken for a maintainer's: a comment carrying the run's marker, a
close or a label while one of the run's own actions of that kind was approved.
"""

from __future__ import annotations

import logging

import redis
from rq import Queue

from atlas.connection import text
from workers.approvals import records as approvals
from workers.runs.queueing import enqueue
from workers.runs.store import RUN_TTL_SECONDS, RunStore

log = logging.getLogger("atlas.new_issues")
WRITERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
TOOL_OF = {"closed": "close_issue", "labelled": "add_labels", "answered": "post_comment"}


def _key(run_id: str) -> str:
    return f"atlas:triage:superseded:{run_id}"


def superseded(conn: redis.Redis, run_id: str) -> str:
    """What a maintainer did before anyone clicked ('' when nothing)."""
    raw = conn.get(_key(run_id))
    return text(raw) if raw else ""


def acted(conn: redis.Redis, queue_name: str, run_id: str, what: str, who: str, *, comment: str = "") -> bool:
    """`what` (closed, labelled, answered) by `who`: expire the card's open approvals and queue the resumes
    that show it. False when it was Atlas's own write or nothing is pending."""
    store = RunStore(conn)
    try:
        run = store.load(run_id)
    except Exception:
        return False
    pending = [p for p in run.pending if p.name != "undo_triage"]  # the Undo outlives what maintainers do next
    if run.status != "awaiting_approval" or not pending:
        return False
    if f"atlas:{run_id}." in comment:  # the hidden marker of a comment Atlas posted for this run
        return False
    tools = {TOOL_OF.get(what), "close_issue" if what == "answered" else None} - {
        None
    }  # a duplicate's close comments first
    done = any(
        a.tool in tools and a.status in ("done", "failed", "in_doubt")
        for a in (run.triage.actions if run.triage else [])
    )
    approved = any(
        p.name in tools and (a := approvals.load(conn, p.pending_id)) is not None and a.status == "approved"
        for p in pending
    )
    if done or approved:  # Atlas's own approved write, arriving as a webhook
        return False
    conn.set(_key(run_id), f"{what} by {who} on GitHub", ex=RUN_TTL_SECONDS, nx=True)
    queue = Queue(queue_name, connection=conn)
    for call in pending:
        _, closed = approvals.expire_step(conn, run_id, call.step)
        if closed or approvals.step_complete(conn, run_id, call.step):
            enqueue(queue, run_id, resume=call.step)
    log.info("run %s: the issue was %s by %s before anyone clicked; its card ends", run_id, what, who)
    return True
