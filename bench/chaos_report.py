"""The chaos bench's outcome and its tables (bench/chaos.py): the faults it made, then each kind of message
(mentions, help posts, new issues, approvals, denials) answered, carded or written once, twice or more, or lost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench import chaos_help, chaos_triage
from bench.report import Table

if TYPE_CHECKING:
    from bench.chaos_rig import Plan


@dataclass
class Outcome:
    """What the threads show once nothing is left to run (queue, started and scheduled jobs all empty)."""

    mentions: int
    answered_once: int = 0
    duplicated: int = 0
    missing: int = 0
    wrong: int = 0  # an answer that is not this thread's question's
    kills: int = 0  # SIGKILLs made (a late one is skipped when no run is left to hold)
    killed_runs: int = 0  # runs in flight in the processes that were SIGKILLed
    refused_posts: int = 0  # Web API calls Slack answered 503
    redeliveries: int = 0  # re-delivery jobs scheduled for answers Slack refused (workers/runs/redelivery.py)
    spooled: int = 0  # mentions that arrived while Redis was down
    slack_down_seconds: float = 0.0  # the outage: at least the plan's, and until an answer was left to a re-delivery
    seconds: float = 0.0  # from the first mention to the last answer
    notes: list[str] = field(default_factory=list)
    triage: chaos_triage.TriageOutcome | None = None
    help: chaos_help.HelpOutcome | None = None


def tables(plan: Plan, outcome: Outcome) -> list[Table]:
    """What `python -m bench chaos` prints for one soak."""
    faults: list[object] = [
        f"{plan.workers} x {plan.concurrency}",
        outcome.kills,
        outcome.killed_runs,
        f"{plan.redis_down_seconds:.0f} s",
        f"{outcome.slack_down_seconds:.0f} s",
        outcome.refused_posts,
        outcome.redeliveries,
        outcome.spooled,
        outcome.seconds,
    ]
    kinds = [
        ["mentions", plan.mentions, outcome.answered_once, outcome.duplicated, outcome.missing, outcome.wrong, "-", "-"]
    ]
    lost = outcome.duplicated + outcome.missing + outcome.wrong
    if outcome.help is not None:
        h = outcome.help
        kinds.append(
            [
                f"help posts ({h.refused} answered 503, retried as Slack does)",
                h.posts,
                h.answered_once,
                h.duplicated,
                h.missing,
                h.wrong,
                "-",
                "-",
            ]
        )
        lost += h.duplicated + h.missing + h.wrong + h.dropped
    if outcome.triage is not None:
        t = outcome.triage
        kinds.append(
            [
                f"new issues, carded ({t.refused_webhooks} webhooks 503; {t.quiet} triaged with nothing to card)",
                t.issues - t.quiet,
                t.carded_once,
                t.carded_twice,
                t.uncarded,
                0,
                "-",
                "-",
            ]
        )
        kinds.append(
            [
                f"approvals ({t.clicks} clicks, {t.refused_clicks} not 200)",
                t.approved,
                t.written_once,
                t.written_twice,
                t.unwritten,
                0,
                t.written_twice,
                "-",
            ]
        )
        kinds.append(["denials", t.denied, t.denied - t.denied_written, 0, 0, 0, "-", t.denied_written])
        lost += t.carded_twice + t.uncarded + t.written_twice + t.unwritten + t.denied_written
    return [
        Table(
            "Chaos with concurrent workers: the faults (worker SIGKILLs, a Redis SIGKILL and restart, Slack 503s, "
            "overlapping)",
            [
                "workers x slots",
                "kills",
                "runs killed",
                "Redis down",
                "Slack down",
                "503s",
                "re-deliveries",
                "kept while Redis was down",
                "s to last answer",
            ],
            [faults],
            notes=[
                "BENCH_CHAOS_SCALE=small|full (default full); BENCH_CHAOS_MENTIONS, BENCH_CHAOS_ISSUES and "
                "BENCH_CHAOS_HELP override its counts; the scheduler worker is never killed (its lock lapses in ~61 s)",
                "Slack is down at least the plan's seconds and until an answer it refused was left to a re-delivery",
                "heartbeat TTL 5 s (the lease's too): at 2 s on a loaded machine a live job's lease lapsed and its run "
                "was worked twice",
                *outcome.notes,
            ],
        ),
        Table(
            "Chaos, per kind: answered (or carded, or written) once, twice or more, lost",
            ["kind", "sent", "once", "twice+", "lost", "wrong", "applied twice", "denied writes applied"],
            kinds,
            goal="every mention and help post answered exactly once, every issue carded once, every approved write "
            "sent once, no denied write",
            met=lost == 0 and outcome.answered_once == plan.mentions,
            notes=[
                "each new issue's card is clicked as it appears, through the faults: Approve on an even-numbered "
                "issue's labels, Deny on an odd one's; a click the deployment did not take is clicked again 3 s later"
            ],
        ),
    ]
