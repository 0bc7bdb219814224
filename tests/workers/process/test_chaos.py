"""Chaos with concurrent workers (issue 29), small: two `atlas worker --concurrency 8` processes, one SIGKILLed
while it holds runs, Redis SIGKILLed and restarted on its socket, Slack answering 503 to every Web API call,
all overlapping, and mentions arriving before and during it: every mention answered exactly once, with its
own answer. The long version is `python -m bench chaos` (bench/chaos.py, the same code)."""

from __future__ import annotations

from pathlib import Path

from bench.chaos import Plan, soak


def test_every_mention_is_answered_exactly_once_through_kills_a_redis_restart_and_slack_503s(tmp_path: Path) -> None:
    plan = Plan(
        mentions=24,
        workers=2,
        concurrency=8,
        kills=1,
        redis_down_seconds=2.0,
        slack_outage_seconds=5.0,
        model_seconds=0.2,
        deadline_seconds=90.0,
    )
    outcome = soak(plan, tmp_path)
    assert outcome.killed_runs >= 1 and outcome.refused_posts >= 1 and outcome.spooled >= 1  # the chaos happened
    assert outcome.redeliveries >= 1  # answers Slack refused were left to scheduled re-deliveries
    assert (outcome.answered_once, outcome.duplicated, outcome.missing, outcome.wrong) == (24, 0, 0, 0), outcome
    assert not [note for note in outcome.notes if note.startswith("jobs left")], outcome.notes  # nothing still to post
