"""The Discord help rules (bot/discord/help_channels.py) on a real Redis, driven directly: what a message
in a text channel, a forum or elsewhere starts, and whose reply makes Atlas step back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import redis

from atlas.settings import Settings
from bot.discord import intake
from bot.discord.help_channels import HelpChannels, HelpMessage
from workers.help import threads
from workers.runs.store import RunStore

TEXT, FORUM, OTHER, GUILD = "1300000000000000601", "1300000000000000602", "1300000000000000603", "1200000000000000001"
POST = HelpMessage(
    message_id="1700000000000000201",
    channel_id=TEXT,
    parent_id="",
    guild_id=GUILD,
    author_id="15",
    role_ids=frozenset(),
    question="What does ORB-1202 mean?",
    mentioned=False,
)


def _rules(redis_url: str, tmp_path: Path, **env: str) -> HelpChannels:
    settings = Settings.from_env(
        {"ATLAS_DISCORD_HELP_CHANNELS": f"{TEXT},{FORUM}", "REDIS_URL": redis_url, "ATLAS_HOME": str(tmp_path), **env}
    )
    return HelpChannels(settings, redis.Redis.from_url(redis_url))


def test_posts_in_text_channels_and_forums_start_runs_and_nothing_else_does(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    rules = _rules(redis_url, tmp_path)
    assert rules.accept(POST) == "queued" and rules.accept(POST) == "duplicate"
    forum = replace(POST, message_id="1700000000000000202", channel_id="1700000000000000202", parent_id=FORUM)
    assert rules.accept(forum) == "queued"
    run = RunStore(redis_conn).load(intake.run_id_for("message", forum.message_id))
    assert (run.origin.channel, run.origin.thread_ts, run.origin.unprompted) == (FORUM, forum.channel_id, True)
    assert rules.accept(replace(POST, message_id="1700000000000000203", channel_id=OTHER)) == "ignored"
    assert rules.accept(replace(POST, message_id="1700000000000000204", channel_id="17", parent_id=OTHER)) == "ignored"
    assert rules.accept(replace(POST, message_id="1700000000000000205", mentioned=True)) == "ignored"  # a mention's
    assert rules.accept(replace(POST, message_id="1700000000000000206", question="")) == "ignored"


def test_a_server_admin_steps_in_only_when_no_approvers_are_configured(redis_url: str, tmp_path: Path) -> None:
    reply = replace(
        POST,
        message_id="1700000000000000301",
        channel_id=POST.message_id,
        parent_id=TEXT,
        author_id="16",
        server_admin=True,
    )
    configured = _rules(redis_url, tmp_path, ATLAS_DISCORD_APPROVER_ROLE="1600000000000000041")
    assert configured.accept(POST) == "queued"
    assert configured.accept(reply) == "ignored"  # approvers are named: an admin is not one
    assert configured.accept(replace(reply, role_ids=frozenset({"1600000000000000041"}))) == "stepped_back"
    thread = threads.discord_thread(GUILD, POST.message_id)
    assert threads.stepped_back(configured.conn, thread)
    assert (
        configured.accept(replace(POST, message_id="1700000000000000302", channel_id=POST.message_id, parent_id=TEXT))
        == "stepped_back"
    )
    other = replace(POST, message_id="1700000000000000400")
    default = _rules(redis_url, tmp_path)
    assert default.accept(other) == "queued"
    assert (
        default.accept(replace(reply, message_id="1700000000000000401", channel_id=other.message_id)) == "stepped_back"
    )
