"""The click that closes a step queues its resume in the same script that records it (issue 22, item 23).

Redis lost right after the decision script (before anything else the click does) must leave the run
with its resume job queued, and the clicker must not be told the click was not recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis
from rq import Queue
from rq.job import Job

from bot.discord.interactions import Interactions
from bot.discord.views.components import APPROVE_PREFIX
from bot.lookups import Lookups
from bot.slack import wording
from tests.bot.slack.test_approval_clicks import Held
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.tcp_proxy import TcpProxy
from tests.support.approvals_harness import MAINTAINER, pending_id, stack
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from tests.workers.approvals.test_approval_place import discord_card
from workers.approvals import records as approvals
from workers.runs.job_names import CONTINUE_RUN
from workers.runs.queueing import job_id, job_options

LABEL = ("add_labels", {"issue_id": 3, "labels": ["bug"]})


def _assert_resume_queued(conn: redis.Redis, run_id: str, queue: str = "atlas") -> None:
    """The resume job exists and is queued as `queueing.enqueue(..., resume=1)` would have queued it."""
    job = Job.fetch(job_id(run_id, 1), connection=conn)
    expected = job_options(run_id, 1)
    assert (job.func_name, job.args, job.description) == (CONTINUE_RUN, (run_id,), expected["description"])
    assert (job.timeout, job.result_ttl, job.retries_left) == (
        expected["job_timeout"],
        expected["result_ttl"],
        expected["retry"].max,
    )
    assert job.get_status() == "queued" and job.id in Queue(queue, connection=conn).job_ids


def test_redis_lost_right_after_the_closing_decision_leaves_the_resume_queued(tmp_path: Path, redis_url: str) -> None:
    with TcpProxy.for_redis(redis_url) as proxy, stack(tmp_path, proxy.url()) as s:
        (card,) = s.pause([LABEL])
        held = Held()
        s.bot.deps.background = held
        assert s.click(card, MAINTAINER) == 200  # the decision script ran before the ack
        proxy.down()  # Redis gone before any after-ack work
        held.run_all()
        proxy.up()
        conn = redis.Redis.from_url(redis_url)
        assert approvals.load(conn, pending_id(card)).status == "approved"  # type: ignore[union-attr]
        _assert_resume_queued(conn, s.run_of(card).id, s.env.get("ATLAS_QUEUE", "atlas"))
        told = [n["text"] for n in s.api.ephemerals()]
        assert wording.EPHEMERAL_UNAVAILABLE not in told


class DiesAfter:
    """A Redis client whose connection drops after `sends` commands (the server killed mid-click)."""

    def __init__(self, url: str, sends: int) -> None:
        pool = redis.ConnectionPool.from_url(url)
        budget = [sends]

        class Dying(pool.connection_class):  # type: ignore[name-defined,misc]
            def send_packed_command(self, command: Any, check_health: bool = True) -> None:
                if budget[0] <= 0:
                    raise redis.ConnectionError("Connection closed by server.")
                budget[0] -= 1
                super().send_packed_command(command, check_health)

        pool.connection_class = Dying
        self.conn = redis.Redis(connection_pool=pool)
        self.budget = budget


def test_a_discord_click_whose_redis_dies_after_the_decision_still_resumes_and_says_so(  # noqa: F811
    discord_api: DiscordAPI, tmp_path: Path, redis_url: str
) -> None:
    maintainer = "1500000000000000011"
    settings = discord_settings(
        discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"), discord_approvers=(maintainer,)
    )
    conn = redis.Redis.from_url(redis_url)
    run, call, card = discord_card(conn)
    dying = DiesAfter(redis_url, sends=10)
    endpoint = Interactions(settings, dying.conn, Lookups.open(settings.data_dir, settings.home, semantic=False))
    dying.conn.ping()  # connected (its handshake is not counted)
    conn.script_flush()  # the click's script is loaded by its first EVALSHA (NOSCRIPT, then SCRIPT LOAD, then EVALSHA)
    dying.budget[0] = 3
    reply = endpoint.handle(di.click(APPROVE_PREFIX + call.pending_id, di.member(maintainer), message=card))
    assert approvals.load(conn, call.pending_id).status == "approved"  # type: ignore[union-attr]
    assert reply["type"] == 7 and "Approved by" in reply["data"]["content"]  # the truth: the card shows the decision
    wait_for(lambda: Job.exists(job_id(run.id, 1), connection=conn), timeout=2, what="the resume job")
    _assert_resume_queued(conn, run.id)
