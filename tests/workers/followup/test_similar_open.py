"""Before filing from chat (issue 36 item 7): the draft's card shows up to three OPEN issues that may be the same,
found among every candidate the triage engine ranks, not only its best three: closed reports of the same crash
that rank higher do not crowd out open ones; unrelated open issues (below the triage card's floor) are not shown;
each is as the triage card would show it, with score and why, and the best is offered as "Add my details"."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import redis

from tests.support.triage_data import issue
from workers.followup import add_details, similar
from workers.runs.state import RunState
from workers.triage import engine as triage_engine
from workers.triage.engine import NewIssue, Triage
from workers.triage.history import History

CRASH = "Traceback (most recent call last):\n  File \"orbit/lease.py\", line 40\nKeyError: 'lease_id'"


def _tracker() -> list[dict[str, Any]]:
    """Four closed reports of the lease crash, nearly word for word the draft; three open ones, told differently;
    and open issues about something else."""
    rows = [
        issue(n, "Worker crashes with KeyError 'lease_id' on startup", f"The worker dies at start:\n{CRASH}")
        for n in range(1, 5)
    ]
    rows += [
        issue(5, "KeyError lease_id in the lease keeper", f"Seen again after a restart:\n{CRASH}", state="open"),
        issue(6, "Lease renewal fails: KeyError 'lease_id'", f"Renewing a lease raises:\n{CRASH}", state="open"),
        issue(7, "Startup crash, lease_id missing", f"Happens on every start of a worker:\n{CRASH}", state="open"),
        issue(8, "Dark mode for the dashboard", "A dark theme option for the dashboard pages.", state="open"),
        issue(9, "How do I set the cron timezone?", "Is there a setting for the scheduler's timezone?", state="open"),
    ]
    return rows


@dataclass
class Parts:
    conn: redis.Redis
    engine: Triage
    settings: Any = field(default_factory=lambda: SimpleNamespace(github=SimpleNamespace(repo="acme/rocket")))
    tracker: Any = field(
        default_factory=lambda: SimpleNamespace(url=lambda n: f"https://github.com/acme/rocket/issues/{n}")
    )

    def triage_engine(self) -> Triage:
        return self.engine


def test_three_open_matches_are_shown_when_closed_ones_rank_higher(redis_conn: redis.Redis) -> None:
    engine = Triage(History.from_rows(_tracker()))
    title, body = "Worker crashes with KeyError 'lease_id' on startup", f"The worker dies at start:\n{CRASH}"
    best = [c.id for c in engine.score(NewIssue(0, title, body)).candidates]
    assert len(best) == triage_engine.MAX_DUPLICATES and all(n <= 4 for n in best)  # the engine's best are closed

    shown = similar.open_matches(Parts(redis_conn, engine), title, body)  # type: ignore[arg-type]

    assert sorted(s["id"] for s in shown) == [5, 6, 7]  # open, the same crash; never #8 or #9
    assert [s["score"] for s in shown] == sorted((s["score"] for s in shown), reverse=True)
    assert all(s["score"] >= triage_engine.RELATED_FLOOR and s["evidence"] for s in shown)
    assert shown[0]["url"] == f"https://github.com/acme/rocket/issues/{shown[0]['id']}"
    run = RunState(id="filing-1", question="", status="queued")
    offered = add_details.offer(run, shown, body)
    assert offered is not None and add_details.issue_of(offered) == shown[0]["id"]


def test_an_unrelated_draft_is_shown_no_open_issue(redis_conn: redis.Redis) -> None:
    engine = Triage(History.from_rows(_tracker()))
    shown = similar.open_matches(
        Parts(redis_conn, engine),  # type: ignore[arg-type]
        "Support exporting reports as PDF",
        "Please add a PDF export for the monthly usage report.",
    )
    assert shown == []
