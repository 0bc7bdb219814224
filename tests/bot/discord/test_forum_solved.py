"""A Discord forum post tagged solved (issue 39): the tag's name (any case) starts the one solved-thread run of the
post's latest answer; another tag, a post Atlas never answered, or the tag again start nothing."""

from __future__ import annotations

import redis

from atlas.knowledge_settings import KnowledgeSettings
from atlas.settings import Settings
from bot.discord.forum_solved import tagged_solved
from workers.knowledge import solved_claim
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

GUILD, POST = "111111111111", "222222222222"


def test_the_solved_tag_starts_one_run_of_the_posts_answer(redis_conn: redis.Redis) -> None:
    settings = Settings(knowledge=KnowledgeSettings(solved_tag="resolved"))
    answered = RunState(
        question="Why does my worker hang?",
        answer="Upgrade to 2.3.1.",
        status="done",
        origin=Origin(kind="discord", team=GUILD, channel=POST, thread_ts=POST, user="333333333333"),
    )
    RunStore(redis_conn).save(answered)
    assert tagged_solved(redis_conn, settings, GUILD, POST, ["Resolved"]) == "no answer of Atlas's in this post"
    solved_claim.remember_answer(redis_conn, answered)
    assert tagged_solved(redis_conn, settings, GUILD, POST, ["bug"]) == "not the solved tag"
    assert tagged_solved(redis_conn, settings, GUILD, POST, ["Resolved"]) == "started"
    assert tagged_solved(redis_conn, settings, GUILD, POST, ["resolved "]) == "already claimed"
    run = RunStore(redis_conn).load(redis_conn.get(solved_claim.claim_key(answered.id)).decode())
    assert run.solved is not None and run.solved.marked == "forum_tag" and run.solved.source_run == answered.id
    assert run.status == "queued" and run.origin.channel == POST


def test_only_a_discord_answer_is_remembered_as_its_threads_latest(redis_conn: redis.Redis) -> None:
    """Issue 40: a command per Slack run. Only a forum tag looks an answer up by its thread (a Slack mark names it)."""
    place = Origin(kind="slack", team="T1", channel="C1", thread_ts="1700000000.000100", user="U1")
    slack = RunState(question="q", answer="a", status="done", origin=place)
    solved_claim.remember_answer(redis_conn, slack)
    assert (
        solved_claim.answer_in(redis_conn, Origin(kind="slack", team="T1", channel="C1", thread_ts=place.thread_ts))
        == ""
    )
    post = Origin(kind="discord", team=GUILD, channel=POST, thread_ts=POST, user="333333333333")
    solved_claim.remember_answer(redis_conn, RunState(question="q", answer="a", status="done", origin=post))
    assert solved_claim.answer_in(redis_conn, Origin(kind="discord", team=GUILD, channel=POST, thread_ts=POST)) != ""
