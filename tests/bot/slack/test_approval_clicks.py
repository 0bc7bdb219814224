"""Approve clicks through the real Bolt app: one Redis round trip before Slack's answer, the rest after it.

The bot's Redis client counts what it sends (one send is one round trip; a pipeline is one send), and
its background pool holds the after-ack work until the test has read the count, so the count is
exactly what the ack waited on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.discord.interactions import Interactions
from bot.discord.views.components import APPROVE_PREFIX, DENY_PREFIX
from bot.lookups import Lookups
from bot.slack import wording
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.slack_interactions import block_action
from tests.standins.tcp_proxy import TcpProxy
from tests.support.approvals_harness import ASKER, CHANNEL, MAINTAINER, STRANGER, Stack, pending_id, stack
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from workers.approvals import decisions
from workers.approvals import records as approvals
from workers.approvals.approvers import admin_key, group_key
from workers.runs.state import Origin, PendingCall, RunState

ADMIN, GROUPIE = "U0ADMIN", "U0GROUPIE"
LABEL = ("add_labels", {"issue_id": 3, "labels": ["bug"]})


class Held(Executor):
    """A background pool that runs nothing until `run_all`: the after-ack work, held."""

    def __init__(self) -> None:
        self.work: list[Callable[[], Any]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.work.append(lambda: fn(*args, **kwargs))
        return Future()

    def run_all(self) -> None:
        while self.work:
            self.work.pop(0)()


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


def _people(s: Stack) -> None:
    for user in (ASKER, MAINTAINER, STRANGER, GROUPIE):
        s.api.add_user(user)
    s.api.add_user(ADMIN, admin=True)
    s.api.add_group("S0MAINT", [GROUPIE])


POLICIES = {  # name: (environment, clicker, the directory answer to forget before the counted click)
    "approver ids": ({"ATLAS_APPROVERS": MAINTAINER}, MAINTAINER, None),
    "asker opt-in": ({"ATLAS_APPROVERS": MAINTAINER, "ATLAS_ASKER_MAY_APPROVE": "true"}, ASKER, None),
    "group, cached": ({"ATLAS_APPROVERS": "", "ATLAS_APPROVER_GROUP": "S0MAINT"}, GROUPIE, None),
    "admins, cached": ({"ATLAS_APPROVERS": ""}, ADMIN, None),
    "group, not cached": ({"ATLAS_APPROVERS": "", "ATLAS_APPROVER_GROUP": "S0MAINT"}, GROUPIE, group_key("S0MAINT")),
    "admins, not cached": ({"ATLAS_APPROVERS": ""}, ADMIN, admin_key(ADMIN)),
}


@pytest.mark.parametrize("name", list(POLICIES))
def test_a_click_waits_on_one_redis_round_trip_before_its_ack(name: str, tmp_path: Path, redis_url: str) -> None:
    env, clicker, forget = POLICIES[name]
    conn, sent = counting_client(redis_url)
    with stack(tmp_path, redis_url, bot_conn=conn, **env) as s:
        _people(s)
        warm_up, card = s.pause([LABEL, LABEL])
        held = Held()
        s.bot.deps.background = held
        assert s.click(warm_up, clicker) == 200  # the script is loaded, the directory answer cached
        held.run_all()
        assert approvals.load(s.conn, pending_id(warm_up)).status == "approved"  # type: ignore[union-attr]
        if forget:
            s.conn.delete(forget)
        sent.clear()
        assert s.click(card, clicker) == 200
        assert len(sent) == 1, [c[:80] for c in sent]
        looked_up = len(s.api.calls_to("users.info", "usergroups.users.list"))
        held.run_all()  # after the ack: a lookup if nothing was cached, the resume, the card edit
        found = approvals.load(s.conn, pending_id(card))
        assert found is not None and (found.status, found.decider) == ("approved", clicker)
        assert len(s.api.calls_to("users.info", "usergroups.users.list")) == looked_up + (1 if forget else 0)
        assert s.resume_job(found.run_id, 1) is not None  # the click closed the step
        assert any(c.args.get("ts") == card["ts"] for c in s.api.calls_to("chat.update"))


def test_redis_down_at_a_click_or_after_it_the_clicker_hears_so_and_nothing_is_decided(
    tmp_path: Path, redis_url: str
) -> None:
    with TcpProxy.for_redis(redis_url) as proxy, stack(tmp_path, proxy.url(), ATLAS_APPROVERS="") as s:
        _people(s)
        (card,) = s.pause([LABEL])
        proxy.down()
        assert s.click(card, ADMIN) == 200
        # a dropped connection may have carried the script: "not confirmed"; a refused one: "can't record"
        told = (wording.EPHEMERAL_UNAVAILABLE, wording.APPROVAL_UNCONFIRMED)
        wait_for(lambda: [n for n in s.api.ephemerals() if n["text"] in told], what="the note")
        proxy.up()
        held = Held()
        s.bot.deps.background = held
        assert s.click(card, ADMIN) == 200  # the script ran: the admin flag is not cached, so it is asked after the ack
        proxy.down()
        held.run_all()
        assert len([n for n in s.api.ephemerals() if n["text"] in told]) == 2
        proxy.up()
        assert approvals.load(redis.Redis.from_url(redis_url), pending_id(card)).status == "pending"  # type: ignore[union-attr]


def test_a_click_on_a_missing_approval_is_told_it_is_gone(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url) as s:
        payload = block_action(APPROVE_ACTION, "0000000000000000.call_9", user=MAINTAINER, channel=CHANNEL)
        assert s.bot.send.interaction(payload).status == 200
        wait_for(lambda: [n for n in s.api.ephemerals() if n["text"] == wording.APPROVAL_GONE], what="the note")


def test_a_click_on_a_closed_step_whose_resume_was_lost_queues_it(tmp_path: Path, redis_url: str) -> None:
    """The bot died between deciding and enqueueing: the next click on the card queues the resume."""
    with stack(tmp_path, redis_url) as s:
        _people(s)
        (card,) = s.pause([LABEL])
        decided = decisions.decide(s.conn, pending_id(card), "approved", MAINTAINER, "maint")
        assert isinstance(decided, decisions.Decided) and decided.step_complete
        assert s.resume_job(decided.approval.run_id, 1) is None
        assert s.click(card, MAINTAINER) == 200
        wait_for(lambda: s.resume_job(decided.approval.run_id, 1), what="the resume job")
        wait_for(lambda: [n for n in s.api.ephemerals() if "already decided" in n["text"]], what="the note")


def test_a_discord_click_that_leaves_calls_open_is_one_round_trip(
    discord_api: DiscordAPI,
    redis_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Discord answers a click in its HTTP reply: deciding a call (the step still open) is one round trip."""
    maintainer = "1500000000000000011"
    settings = discord_settings(
        discord_api, redis_url, tmp_path / "home", make_dataset(tmp_path / "data"), discord_approvers=(maintainer,)
    )
    conn, sent = counting_client(redis_url)
    endpoint = Interactions(settings, conn, Lookups.open(settings.data_dir, settings.home, semantic=False))
    first, second = _open(conn, calls=2)
    endpoint.handle(
        di.click(APPROVE_PREFIX + first, di.member(maintainer), message=_card(first))
    )  # warm: the script is loaded
    sent.clear()
    reply = endpoint.handle(di.click(APPROVE_PREFIX + second, di.member(maintainer), message=_card(second)))
    assert len(sent) == 1, [c[:80] for c in sent]
    assert reply["type"] == 7 and "Approved by" in reply["data"]["content"]
    outsider = endpoint.handle(di.click(DENY_PREFIX + second, di.member("1500000000000000099"), message=_card(second)))
    assert "can't approve" in outsider["data"]["content"]


def _open(conn: redis.Redis, calls: int) -> list[str]:
    run = RunState(question="triage #3", origin=Origin(kind="discord", user="1500000000000000001"))
    found = [
        PendingCall(
            pending_id=f"{run.id}.call_{i}",
            call_id=f"call_{i}",
            name="add_labels",
            arguments=json.dumps({"issue_id": 3, "labels": ["bug"]}),
            step=1,
        )
        for i in range(calls + 1)
    ]
    assert approvals.open_step(conn, run, found, 3600)  # one more call than clicked: the step stays open
    for p in found:  # each call's card, in the channel the clicks come from
        approvals.attach_card(
            conn, p.pending_id, di.CHANNEL_ID, _card(p.pending_id)["id"], json.dumps({"content": "card"})
        )
    return [p.pending_id for p in found[:calls]]


def _card(pending: str) -> dict[str, Any]:
    """The Discord message a call's card is (its id derived from the call, so a click can name it)."""
    number = int(pending.rpartition("_")[2])
    return {"id": f"14000000000000000{number:02d}", "channel_id": di.CHANNEL_ID, "content": "card"}
