"""The `/atlas ask` ack waits on Redis once: one script claims the interaction, records its run and queues its
job (bot/discord/intake.py), and what it records is what the worker needs: the run (its question, origin, the
interaction's webhook, the settings' fingerprint, the thread's earlier turns) and RQ's job for it, in the queue.

The endpoint's Redis client counts what it sends (one send is one round trip; a pipeline is one send).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis
from rq import Queue
from rq.job import Job

from bot.discord import intake
from bot.discord.interactions import Interactions
from bot.lookups import Lookups
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.support.tools_dataset import make_dataset
from workers.runs import conversations
from workers.runs.job_names import CONTINUE_RUN
from workers.runs.queueing import job_id
from workers.runs.state import Origin, Turn
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface

ASKER = di.member("1500000000000000041", name="asker")


def counting_client(url: str) -> tuple[redis.Redis, list[bytes]]:
    """A client on `url` whose connections record every send (one send: one round trip)."""
    pool = redis.ConnectionPool.from_url(url)
    sent: list[bytes] = []

    class Counting(pool.connection_class):  # type: ignore[name-defined,misc]
        def send_packed_command(self, command: Any, check_health: bool = True) -> None:
            sent.append(b"".join(command) if isinstance(command, list) else command)
            super().send_packed_command(command, check_health)

    pool.connection_class = Counting
    return redis.Redis(connection_pool=pool), sent


def test_an_ask_is_acked_after_one_round_trip_and_records_its_run_and_job(
    discord_api: DiscordAPI,  # noqa: F811
    redis_url: str,
    tmp_path: Path,
) -> None:
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    conn, sent = counting_client(redis_url)
    endpoint = Interactions(settings, conn, Lookups.open(settings.data_dir, settings.home, semantic=False))
    assert endpoint.handle(di.ask("warm up: the script is loaded", ASKER)) == {"type": 5}
    payload = di.ask("What does ORB-1202 mean?", ASKER)
    sent.clear()
    assert endpoint.handle(payload) == {"type": 5}
    assert len(sent) == 1, [c[:80] for c in sent]

    run_id = intake.run_id_for("interaction", str(payload["id"]))
    run = RunStore(conn).load(run_id)
    assert run.question == "What does ORB-1202 mean?" and run.status == "queued"
    assert run.origin == Origin(
        kind="discord", user=ASKER["user"]["id"], channel=di.CHANNEL_ID, team=payload["guild_id"]
    )
    hook = DiscordSurface.of(run).interaction
    assert hook is not None and hook.token == payload["token"] and hook.app == payload["application_id"]
    assert run.settings_fingerprint == settings.fingerprint and run.history == [] and run.unfiled
    job = Job.fetch(job_id(run_id), connection=conn)
    assert job.func_name == CONTINUE_RUN and job.args == (run_id,)
    assert job_id(run_id) in Queue(settings.queue_name, connection=conn).job_ids

    assert endpoint.handle(payload) == {"type": 5}  # Discord's retry of the same interaction: no second job
    assert Queue(settings.queue_name, connection=conn).job_ids.count(job_id(run_id)) == 1


def test_a_follow_up_run_carries_the_threads_earlier_turns(
    discord_api: DiscordAPI,  # noqa: F811
    redis_url: str,
    tmp_path: Path,
) -> None:
    settings = discord_settings(discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"))
    conn = redis.Redis.from_url(redis_url)
    thread, team = "1300000000000000077", "1200000000000000001"
    before = Turn(question="What is ORB-1202?", answer="A permanent error.", asker="1500000000000000041")
    conversations.append(conn, intake.conversation_team(team), thread, thread, "earlier", before)
    origin = Origin(kind="discord", user="1500000000000000041", channel=thread, team=team, thread_ts=thread)
    ident = di.next_id()
    outcome = intake.submit(
        conn, settings, kind="message", ident=ident, question="And is it retried?", origin=origin, thread=thread
    )
    assert outcome == "queued"
    run = RunStore(conn).load(intake.run_id_for("message", ident))
    assert run.history == [before] and run.origin == origin and run.surface == DiscordSurface()
    again = intake.submit(conn, settings, kind="message", ident=ident, question="again", origin=origin, thread=thread)
    assert again == "duplicate" and RunStore(conn).load(run.id).question == "And is it retried?"
