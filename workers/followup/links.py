"""Which issues a run's thread is linked to: the ones its approved `create_issue` filed and its `link_issue`
named, read back from the run's own items once it ends (the tools' results start with fixed phrases)."""

from __future__ import annotations

import logging

import redis

from tools.issue_filing import FILED, LINKED
from workers.followup import subscriptions as subs
from workers.runs.state import RunState

log = logging.getLogger("atlas.followup")


def linked(run: RunState) -> list[tuple[int, subs.How]]:
    """(issue number, how) for every create_issue that filed one and every link_issue that linked one."""
    names = {str(i.get("call_id")): str(i.get("name")) for i in run.items if i.get("type") == "function_call"}
    found: list[tuple[int, subs.How]] = []
    for item in run.items:
        if item.get("type") != "function_call_output":
            continue
        name, output = names.get(str(item.get("call_id"))), str(item.get("output") or "")
        match = (
            FILED.match(output) if name == "create_issue" else LINKED.match(output) if name == "link_issue" else None
        )
        if match:
            found.append((int(match.group(1)), "filed" if name == "create_issue" else "linked"))
    return found


def subscribe_run(conn: redis.Redis, tracker: str, run: RunState) -> list[int]:
    """Subscribe the run's thread to each issue it filed or linked (idempotent); the numbers."""
    place = subs.place_of(run)
    found = linked(run)
    if place is None or not found:
        return []
    for number, how in found:
        subs.subscribe(conn, tracker, number, place, run.id, how)
    return [number for number, _ in found]
