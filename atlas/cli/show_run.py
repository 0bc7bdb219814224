"""`atlas runs show ID`: one run's record as the person who asked would have seen it.

For the case the thread could not show: an answer or approval card that Slack never took (a long
outage) stays in the run record, and this prints it with where it was meant to go.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime

import redis

from atlas.cli.ask import render, result_json
from atlas.connection import connect
from atlas.settings import Settings
from workers.errors import RunNotFound
from workers.followup import subscriptions
from workers.knowledge import watches
from workers.runs.state import RunState
from workers.runs.store import RunStore

DRAFTED = {
    "model": "draft: model",
    "thread": "draft: the thread's words",
    "fallback": "draft: the thread's words (the model's draft failed: {failure})",
}
UNDELIVERED = {
    "answer": "the answer was not delivered to Slack",
    "cards": "the approval cards were not delivered to Slack",
    "triage_card": "the triage card was not delivered to Slack",
}


def show(settings: Settings, run_id: str, *, as_json: bool) -> int:
    """Print the run; exit 1 when it is unknown or Redis cannot be reached."""
    try:
        conn = connect(settings)
        run = RunStore(conn).load(run_id)
        following = [f"{tracker}#{number}" for tracker, number in subscriptions.of_run(conn, run)]
        notes = watches.notes_of(conn, run.id)  # cited sources that changed since, told in the thread
    except RunNotFound:
        print(f"atlas runs show: no run {run_id!r} (unknown, or older than 30 days)", file=sys.stderr)
        return 1
    except redis.RedisError as exc:
        print(f"atlas runs show: Redis is unreachable ({type(exc).__name__})", file=sys.stderr)
        return 1
    if as_json:
        triage = (
            {"triage": run.triage.model_dump()} if run.triage is not None else {}
        )  # what was suggested, each action's fate
        filing = {"filing": run.filing.model_dump()} if run.filing is not None else {}
        print(
            json.dumps(
                {
                    **result_json(run),
                    "question": run.question,
                    "undelivered": run.surface.undelivered,
                    **triage,
                    **filing,
                    "subscriptions": following,
                    "source_notes": notes,
                },
                indent=2,
            )
        )
    else:
        print(describe(run, following, notes, many=settings.org.many))
    return 0


def describe(
    run: RunState, following: list[str] | None = None, notes: list[dict[str, str]] | None = None, *, many: bool = False
) -> str:
    """Header lines (question, where it came from, its repository, status, delivery), then the answer as `atlas ask`
    prints it. `many`: the install serves several repositories, so a run about none of them searched every one."""
    origin = run.origin
    where = (
        f"Slack {origin.channel} thread {origin.thread_ts or origin.message_ts}"
        if origin.kind == "slack"
        else origin.kind
    )
    if run.triage is not None:
        where = f"the triage inbox ({origin.kind} {origin.channel}), issue #{run.triage.issue} of {run.triage.repo}"
    lines = [f"run {run.id} ({run.status}) from {where}", f"question: {run.question}"]
    if run.repo or many:  # which repository it answered from (issue 38)
        lines.append(f"repository: {run.repo or 'every one served'}")
    if run.handoff is not None:  # a help channel's run that was not confident (workers/help/handoff.py)
        lines.append(f"handed off, not confident; looked at: {run.handoff}")
    if run.filing is not None and run.filing.drafted is not None:  # who wrote the draft, as its card says
        lines.append(DRAFTED[run.filing.drafted].format(failure=run.filing.model_failure))
    undelivered = run.surface.undelivered
    if undelivered:
        lines.append(f"note: {UNDELIVERED.get(undelivered, undelivered)}")
    if following:  # the thread hears when these close or a release mentions them (workers/followup/)
        lines.append(f"subscribed to: {', '.join(following)}")
    lines += [f"source changed, told: {note['label']} ({_when(note)})" for note in notes or []]  # workers/knowledge/
    return "\n".join([*lines, "", render(run)])


def _when(note: dict[str, str]) -> str:
    """When a note was posted, in UTC."""
    return datetime.fromtimestamp(float(note.get("at") or 0), tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
