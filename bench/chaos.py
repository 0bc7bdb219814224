"""Chaos with concurrent workers: `python -m bench chaos` (issues 29 and 35; the test's small version is
tests/workers/process/test_chaos.py). The deployment is bench/chaos_rig.py.

Mentions arrive signed at `atlas serve`, with new GitHub issues (signed webhooks, bench/chaos_triage.py) and
help-channel posts (bench/chaos_help.py) among them, while, overlapping: Slack answers 503 to every Web API
call (at least `slack_outage_seconds`, and until an answer it refused has been left to a scheduled
re-delivery), Redis is SIGKILLed and restarted on its socket (the mentions and posts that arrive meanwhile
are kept by the web process; the webhooks get a 503 and are left to the periodic sync), and plain workers are
SIGKILLed while they hold runs (restarted at once, as a supervisor would; the scheduler worker is not killed:
another one takes its lock only once it lapses, about a minute). A maintainer clicks each triage card as it
appears, through the faults: Approve or Deny. Then: is every mention and post answered exactly once, every
issue carded once, every approved write sent once and no denied one?
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rq import Worker

from atlas import embedded_redis
from bench import chaos_help, chaos_report, chaos_triage, chaos_why
from bench.chaos_report import Outcome
from bench.chaos_rig import CHANNEL, Plan, Rig, SlackOutage, lingering, redeliveries
from bench.chaos_rig import rig as deployment
from bench.measure import wait
from bench.report import Table
from tests.standins.slack_events import mention

__all__ = ["CHANNEL", "SCALES", "Outcome", "Plan", "run", "soak"]

# BENCH_CHAOS_SCALE: "full" is the bench's; "small" finishes in a few minutes on a loaded 2-core machine.
SCALES = {
    "full": Plan(mentions=90, issues=12, help_posts=30),
    "small": Plan(
        mentions=24,
        issues=6,
        help_posts=12,
        kills=2,
        redis_down_seconds=4.0,
        slack_outage_seconds=5.0,
        model_seconds=0.2,
        deadline_seconds=180.0,
    ),
}


def _thread(index: int) -> str:
    return f"1700100000.{index:06d}"


def _mention(rig: Rig, index: int) -> None:
    reply = rig.send.event(mention(f"chaos question {index}", ts=_thread(index), eid=f"EvChaos{index:06d}"))
    assert reply.status == 200, reply


def _kill_a_plain_worker(
    rig: Rig, plan: Plan, outcome: Outcome, *, restart: bool = True, done: Callable[[], bool] | None = None
) -> None:
    """SIGKILL the plain worker holding the most runs (once it holds one), and start another in its place;
    with `done`, nothing is killed once it is true (every thread answered: no run is left to hold)."""
    plain = range(1, plan.workers)

    def pick() -> int | str | None:
        if any(rig.holding(i) for i in plain):
            return max(plain, key=rig.holding)
        return "done" if done is not None and done() else None

    index = wait(pick, "a plain worker holding runs", timeout=120, interval=0.05)
    if not isinstance(index, int):
        return
    outcome.kills += 1
    outcome.killed_runs += rig.holding(index)
    rig.workers[index].send_signal(signal.SIGKILL)
    rig.workers[index].wait(timeout=10)
    if restart:
        rig.start_worker(index)


def soak(plan: Plan, root: Path) -> Outcome:
    """Run the plan; count each thread's answers, each issue's cards and writes once nothing is left to do."""
    outcome = Outcome(plan.mentions)
    first, later = plan.mentions // 2, plan.mentions // 4  # before the chaos, while Redis is down; the rest after it
    triage = outcome.triage = chaos_triage.TriageOutcome(plan.issues) if plan.issues else None
    numbers: list[int] = []
    refused_help: list[int] = []
    thirds = [range(k * plan.issues // 3, (k + 1) * plan.issues // 3) for k in range(3)]
    help_thirds = [range(k * plan.help_posts // 3, (k + 1) * plan.help_posts // 3) for k in range(3)]

    def others(part: int) -> None:  # each phase's share of the new issues (webhooks) and help posts
        if triage is not None:
            numbers.extend(chaos_triage.open_issue(rig.github, rig.webhook, i, triage) for i in thirds[part])
        statuses = pool.map(lambda i: (i, chaos_help.post(rig.send, i)), help_thirds[part])
        refused_help.extend(i for i, status in statuses if status == 503)  # Redis down: Slack will retry them

    with deployment(plan, root) as rig, ThreadPoolExecutor(max_workers=16) as pool:
        clicker = chaos_triage.Clicker(rig.api, rig.send, triage) if triage is not None else None  # clicks all along
        began = time.monotonic()
        others(0)
        list(pool.map(lambda i: _mention(rig, i), range(first)))
        outage = SlackOutage(rig, plan.slack_outage_seconds)  # every Web API call: the answers, progress, statuses
        _kill_a_plain_worker(rig, plan, outcome, restart=False)
        wait(
            lambda: redeliveries(rig),
            "an answer Slack refused left to a re-delivery",
            timeout=plan.deadline_seconds,
            interval=0.1,
        )
        outcome.slack_down_seconds = outage.end()
        rig.kill_redis()
        list(pool.map(lambda i: _mention(rig, i), range(first, first + later)))  # kept on disk by the web process
        outcome.spooled = later
        others(1)  # the webhooks get 503s: Redis is down
        threading.Event().wait(plan.redis_down_seconds)  # the outage itself
        embedded_redis.ensure_running(root / "redis")
        rig.start_worker(1)
        wait(
            lambda: rig.names[1] in {w.name for w in Worker.all(connection=rig.conn())},
            "the restarted worker to register",
            timeout=90,
        )
        listed = {w.name for w in Worker.all(connection=rig.conn())}
        if len(listed) < plan.workers:
            outcome.notes.append(f"after Redis's restart RQ lists only {sorted(listed)}")
        dropped = chaos_help.retry(rig.send, refused_help)  # Slack's retries of the posts refused while Redis was down
        list(pool.map(lambda i: _mention(rig, i), range(first + later, plan.mentions)))  # work for the later kills
        others(2)
        threads = [_thread(i) for i in range(plan.mentions)]

        def answered() -> bool:
            return all(rig.answers(t) for t in threads) and all(
                chaos_help.answers(rig.api, i) for i in range(plan.help_posts)
            )

        for _ in range(plan.kills - 1):
            _kill_a_plain_worker(rig, plan, outcome, done=answered)
        wait(answered, "every thread answered", timeout=plan.deadline_seconds, interval=0.1)
        outcome.seconds = time.monotonic() - began
        if clicker is not None:
            _decided(rig, plan, numbers, clicker)
        try:
            wait(lambda: not lingering(rig), "no job left", timeout=60, interval=0.1)
        except TimeoutError:
            outcome.notes.append(f"jobs left a minute after the last answer: {', '.join(lingering(rig))}")
        for index, thread in enumerate(threads):
            answers = rig.answers(thread)
            outcome.answered_once += len(answers) == 1
            outcome.duplicated += len(answers) > 1
            if len(answers) > 1:  # which one, and when each answer was posted, to find its runs in the logs
                outcome.notes.append(
                    f"thread {thread} answered {len(answers)} times: ts {[a.get('ts') for a in answers]}"
                    f" (calls and runs: {chaos_why.twice(rig, thread)})"
                )
            outcome.missing += not answers
            expected = f"answer to chaos question {index}"
            outcome.wrong += any(expected not in str(a.get("blocks")) for a in answers)
        outcome.refused_posts = sum(1 for c in rig.api.calls if c.status == 503)
        outcome.redeliveries = redeliveries(rig)
        outcome.help = (
            chaos_help.count(rig.api, plan.help_posts, len(refused_help), len(dropped)) if plan.help_posts else None
        )
        if triage is not None:
            carded = chaos_triage.to_card(rig.conn(), rig.github.repo.full_name, numbers)
            chaos_triage.count(rig.github, rig.api, numbers, carded, triage)
    return outcome


def _decided(rig: Rig, plan: Plan, numbers: list[int], clicker: chaos_triage.Clicker) -> None:
    """Every issue's card up (the periodic sync brings those whose webhook met Redis down), each one decided
    (the clicker clicked it through the faults) and every approved write sent."""
    repo = rig.github.repo.full_name
    try:
        try:
            wait(
                lambda: chaos_triage.all_carded(rig.api, chaos_triage.to_card(rig.conn(), repo, numbers)),
                "a card for every new issue",
                timeout=plan.deadline_seconds,
                interval=0.2,
            )
        except TimeoutError as error:  # say which issues, and where each one's triage stands
            raise TimeoutError(
                f"{error}\n{chaos_why.uncarded(rig, numbers, clicker.outcome.webhook_status)}"
            ) from error
        wait(
            lambda: (
                clicker.click_pending() == 0
                and all(
                    chaos_triage.written(rig.github, n)
                    for n in chaos_triage.to_card(rig.conn(), repo, numbers)
                    if n % 2 == 0
                )
            ),
            "every card decided and every approved label write sent",
            timeout=plan.deadline_seconds,
            interval=0.5,
        )
    finally:
        clicker.close()


def _plan() -> Plan:
    """BENCH_CHAOS_SCALE picks the plan; BENCH_CHAOS_MENTIONS, _ISSUES and _HELP override its counts."""
    plan = SCALES[os.environ.get("BENCH_CHAOS_SCALE", "full")]
    counts = {"mentions": "BENCH_CHAOS_MENTIONS", "issues": "BENCH_CHAOS_ISSUES", "help_posts": "BENCH_CHAOS_HELP"}
    return Plan(**{**plan.__dict__, **{k: int(os.environ[v]) for k, v in counts.items() if v in os.environ}})


def run() -> list[Table]:
    plan = _plan()
    with chaos_why.home() as tmp:
        outcome = soak(plan, tmp)
    return chaos_report.tables(plan, outcome)
