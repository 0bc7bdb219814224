"""The whole approval path on loopback: a real Bolt app (signed requests), the Slack Web API stand-in,
the scripted Responses API, real `atlas worker` processes, the real Redis and the demo tracker."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis
from rq import Worker
from rq.job import Job
from slack_sdk import WebClient

from atlas.settings import Settings
from bot.slack import cards as approval_cards
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION
from datasets import tracker_db, tracker_journal
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import TEAM, SlackAPI
from tests.standins.slack_events import SECRET, mention
from tests.standins.slack_fixtures import RunningBot, start_bot
from tests.standins.slack_interactions import block_action
from tests.support.approvals_data import make_data
from tests.support.processes import REPO, wait_for, worker_process
from tools.demo_tracker import demo_tracker
from tools.issue_store import IssueStore
from workers.approvals import records as approvals
from workers.runs.queueing import job_id
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.store import RunStore

CHANNEL = "C0TRIAGE"
ASKER = "U0ASKER"
MAINTAINER = "U0MAINT"
STRANGER = "U0MALLORY"
FAULTS = REPO / "tests" / "faults"


WORKER_START_SECONDS = 120  # a process's start only: load-bound (2 cores shared by three test processes and theirs)


def _born_since(conn: redis.Redis, name: str, since: datetime) -> bool:
    """The worker `name` registered with RQ at or after `since` (a killed one of that name may still be listed)."""
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + name, connection=conn)
    return worker is not None and worker.birth_date is not None and worker.birth_date.replace(tzinfo=None) >= since


@dataclass
class Stack:
    bot: RunningBot
    api: SlackAPI
    model: ScriptedModel
    conn: redis.Redis
    data: Path
    env: dict[str, str]
    home: Path

    # -- driving ---------------------------------------------------------------------------------
    def ask(self, text: str, ts: str = "1700000100.000100", user: str = ASKER) -> str:
        """Mention Atlas in the triage channel; returns the thread ts."""
        reply = self.bot.send.event(mention(text, channel=CHANNEL, user=user, ts=ts))
        assert reply.status == 200, reply
        return ts

    def click(self, card: dict[str, Any], user: str, approve: bool = True, thread_ts: str | None = None) -> int:
        action = APPROVE_ACTION if approve else DENY_ACTION
        payload = block_action(
            action,
            pending_id(card),
            user=user,
            channel=CHANNEL,
            message_ts=card["ts"],
            thread_ts=thread_ts or card.get("thread_ts"),
        )
        payload["user"]["username"] = user.lower().removeprefix("u0")
        payload["message"] = {"ts": card["ts"], "thread_ts": card.get("thread_ts"), "blocks": card["blocks"]}
        return self.bot.send.interaction(payload).status

    def approve_then_kill(self, thread_ts: str, marker: Path, name: str = "doomed") -> tuple[dict[str, Any], RunState]:
        """Approve the thread's card in a worker that hangs after the side effect and before the ledger
        records it (tests/faults), then kill that worker; returns the card and its run."""
        # the checkout first: an editable install elsewhere (a shared venv) must not supply the code
        with self.worker(
            name, PYTHONPATH=os.pathsep.join([str(FAULTS), str(REPO)]), ATLAS_FAULT_HANG_BEFORE_RECORD=str(marker)
        ) as doomed:
            (card,) = self.cards(thread_ts)
            run = self.run_of(card)
            self.click(card, MAINTAINER)
            wait_for(marker.exists, what="the side effect to run")
            doomed.kill()
            doomed.wait(timeout=10)
        return card, run

    # -- observing -------------------------------------------------------------------------------
    def cards(self, thread_ts: str, count: int = 1) -> list[dict[str, Any]]:
        """Wait for `count` approval cards in the thread (messages with an Approve button); copies as posted."""
        found = wait_for(
            lambda: (
                (found := [m for m in self.api.thread(CHANNEL, thread_ts) if is_card(m)])
                and len(found) >= count
                and found
            ),
            what=f"{count} approval card(s)",
        )
        return copy.deepcopy(found)

    def run_of(self, card: dict[str, Any]) -> RunState:
        return RunStore(self.conn).load(pending_id(card).split(".")[0])

    def wait_final(self, run_id: str, timeout: float = 60) -> RunState:
        store = RunStore(self.conn)
        return wait_for(
            lambda: (run := store.load(run_id)).final and run, timeout=timeout, what=f"run {run_id} to finish"
        )

    def wait_status(self, run_id: str, status: str) -> RunState:
        store = RunStore(self.conn)
        return wait_for(lambda: (run := store.load(run_id)).status == status and run, what=f"run {run_id} {status}")

    def journal(self) -> list[tracker_journal.Entry]:
        return tracker_journal.entries(
            tracker_journal.journal_path(self.data, self.home)
        )  # a user's folder: under home

    def issues(self) -> IssueStore:
        return IssueStore(tracker_db.db_path(self.data, self.home))

    def thread_text(self, thread_ts: str) -> str:
        return "\n".join(
            m.get("text", "") + json.dumps(m.get("blocks", [])) for m in self.api.thread(CHANNEL, thread_ts)
        )

    def card_now(self, card: dict[str, Any]) -> dict[str, Any]:
        return self.api.messages[(CHANNEL, card["ts"])]

    @contextmanager
    def worker(self, name: str, **extra_env: str) -> Iterator[subprocess.Popen[bytes]]:
        """A worker (with the scheduler: approval expiry is a scheduled job), given back once it serves: its start
        (imports, indexes, the tokenizer; 15 s and more on a loaded machine) is not taken from a test's waits."""
        born = datetime.now(UTC).replace(microsecond=0, tzinfo=None)
        with worker_process({**self.env, **extra_env}, name, "--with-scheduler") as proc:
            wait_for(
                lambda: proc.poll() is not None or _born_since(self.conn, name, born),
                timeout=WORKER_START_SECONDS,
                what=f"worker {name} to serve",
            )
            yield proc

    def pause(
        self, calls: list[tuple[str, dict[str, Any]]], thread_ts: str = "1700000200.000100", requester: str = ASKER
    ) -> list[dict[str, Any]]:
        """A run paused on `calls` (name, arguments) with its approval cards posted, as a worker leaves
        it, without a model or a worker: for tests of who may click. Returns the cards."""
        pending = [
            PendingCall(pending_id="", call_id=f"call_{i}", name=name, arguments=json.dumps(args), step=1)
            for i, (name, args) in enumerate(calls)
        ]
        run = RunState(
            question="triage",
            status="awaiting_approval",
            origin=Origin(
                kind="slack", user=requester, channel=CHANNEL, thread_ts=thread_ts, message_ts=thread_ts, team=TEAM
            ),
        )
        run.pending = [p.model_copy(update={"pending_id": f"{run.id}.{p.call_id}"}) for p in pending]
        RunStore(self.conn).save(run)
        approvals.open_step(self.conn, run, run.pending, 3600)
        client = WebClient(token=self.api.token, base_url=self.api.base_url)
        approval_cards.post(client, run, run.pending, conn=self.conn, tracker=demo_tracker(self.data, home=self.home))
        return self.cards(thread_ts, count=len(calls))

    def resume_job(self, run_id: str, step: int) -> Job | None:
        return (
            Job.fetch(job_id(run_id, step), connection=self.conn)
            if Job.exists(job_id(run_id, step), connection=self.conn)
            else None
        )


def is_card(message: dict[str, Any]) -> bool:
    return any(
        b.get("type") == "actions" and any(e.get("action_id") == APPROVE_ACTION for e in b.get("elements", []))
        for b in message.get("blocks", [])
    )


def pending_id(card: dict[str, Any]) -> str:
    for block in card["blocks"]:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            if element.get("action_id") == APPROVE_ACTION:
                return element["value"]
    raise AssertionError("not an approval card")


def outputs_sent(model: ScriptedModel) -> dict[str, str]:
    """call_id -> function_call_output the model was last sent for it."""
    found: dict[str, str] = {}
    for body in model.bodies():
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found[item["call_id"]] = item["output"]
    return found


def decisions(conn: redis.Redis, card: dict[str, Any]) -> approvals.Approval:
    found = approvals.load(conn, pending_id(card))
    assert found is not None
    return found


@contextmanager
def stack(
    tmp_path: Path, redis_url: str, *, ttl: int = 3600, bot_conn: redis.Redis | None = None, **env_overrides: str
) -> Iterator[Stack]:
    """The bot and workers read one environment (as `atlas serve` and `atlas worker` do), so the
    approver settings in it are the ones the click handler enforces. `ATLAS_APPROVERS` is MAINTAINER
    unless overridden (an empty string leaves approvers unconfigured). `bot_conn`: the bot's Redis
    client instead of its own (to watch what it sends)."""
    data = make_data(tmp_path / "data")  # a user's own folder (no .atlas-data): derived files go under home
    home = tmp_path / "home"
    tracker_db.ensure_db(data, home)
    with SlackAPI() as api, ScriptedModel() as model:
        env = {
            "ATLAS_HOME": str(home),
            "REDIS_URL": redis_url,
            "ATLAS_DATA": str(data),
            **model.env(),
            **api.env(),
            "SLACK_SIGNING_SECRET": SECRET,
            "ATLAS_APPROVERS": MAINTAINER,
            "ATLAS_APPROVAL_TTL": str(ttl),
            "ATLAS_MODEL_RETRIES": "0",
            "ATLAS_ISSUES_URL": "https://tracker.example/orbit/issues",
            "ATLAS_WORKER_HEARTBEAT_TTL": "3",
            "ATLAS_WORKER_MAINTENANCE": "1",
            **env_overrides,
        }
        bot, server = start_bot(Settings.from_env(env), api, conn=bot_conn)
        try:
            yield Stack(bot, api, model, redis.Redis.from_url(redis_url), data, env, home)
        finally:
            server.close()  # type: ignore[attr-defined]
            bot.deps.background.shutdown(wait=True)
