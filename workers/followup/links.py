"""Which issues a run's thread is linked to: the ones its approved `create_issue` filed and its `link_issue`
named, read back from the run's own items once it ends (the tools' results start with fixed phrases), each in the
repository its call named or the run's."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import redis

from tools.issue_filing import FILED, LINKED
from workers.followup import subscriptions as subs
from workers.runs.state import RunState

log = logging.getLogger("atlas.followup")


def linked(run: RunState) -> list[tuple[int, subs.How]]:
    """(issue number, how) for every create_issue that filed one and every link_issue that linked one."""
    return [(number, how) for number, how, _ in _linked(run)]


def _linked(run: RunState) -> list[tuple[int, subs.How, str | None]]:
    """`linked`, with the repository each call named (several served, issue 38), else None."""
    calls = {str(i.get("call_id")): i for i in run.items if i.get("type") == "function_call"}
    found: list[tuple[int, subs.How, str | None]] = []
    for item in run.items:
        if item.get("type") != "function_call_output":
            continue
        call = calls.get(str(item.get("call_id"))) or {}
        name, output = str(call.get("name")), str(item.get("output") or "")
        match = (
            FILED.match(output) if name == "create_issue" else LINKED.match(output) if name == "link_issue" else None
        )
        if match:
            found.append((int(match.group(1)), "filed" if name == "create_issue" else "linked", _repo_of(call)))
    return found


def _repo_of(call: dict[str, object]) -> str | None:
    try:
        repo = json.loads(str(call.get("arguments") or "{}")).get("repo")
    except (ValueError, AttributeError):
        return None
    return repo if isinstance(repo, str) and repo else None


def subscribe_run(
    conn: redis.Redis, tracker: str, run: RunState, canonical: Callable[[str], str | None] | None = None
) -> list[int]:
    """Subscribe the run's thread to each issue it filed or linked (idempotent); the numbers. `tracker`: the run's
    repository's; `canonical` spells a call's `repo` as served, whose tracker the issue is then (issue 38)."""
    place = subs.place_of(run)
    found = _linked(run)
    if place is None or not found:
        return []
    for number, how, repo in found:
        named = canonical(repo) if canonical is not None and repo else None
        subs.subscribe(conn, named or tracker, number, place, run.id, how)
    return [number for number, _, _ in found]
