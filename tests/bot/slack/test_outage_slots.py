"""A Slack outage does not hold a worker's slot (issue 29): the answer Slack refuses is handed to a scheduled
re-delivery (workers/runs/redelivery.py) and the job ends, so a worker of one slot answers the next mention
while the first still waits for Slack, and the first answer still appears exactly once when Slack is back."""

from __future__ import annotations

import threading
from pathlib import Path

import redis

from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender, mention
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.processes import atlas_serve, wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.runs.state import RunState
from workers.runs.store import RunStore

CHANNEL = "C0GENERAL"


def _answers(api: SlackAPI, thread: str) -> list[dict]:
    return [m for m in api.thread(CHANNEL, thread) if any(b.get("type") == "markdown" for b in m.get("blocks") or [])]


def _delivered(conn: redis.Redis, ids: list[str]) -> list[RunState] | None:
    """The runs, once each has recorded its answer as posted (the last save after Slack took it)."""
    runs = [RunStore(conn).load(i) for i in ids]
    return runs if all(r.surface.outage_since is None and r.surface.answer_ts for r in runs) else None


def test_a_one_slot_worker_answers_another_mention_while_the_first_waits_out_a_slack_outage(
    atlas_env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,
    tmp_path: Path,  # noqa: F811
) -> None:
    first, second = "1700002900.000100", "1700002900.000200"
    env = {
        **atlas_env,
        **slack_api.env(),
        "SLACK_SIGNING_SECRET": SECRET,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_SLACK_OUTAGE_SECONDS": "120",
        "ATLAS_SLACK_RETRY_CAP": "1",
    }  # waited out in the slot, 120 s would block it
    over = threading.Event()
    slack_api.outage(
        "chat.postMessage", seconds=600, when=lambda args: args.get("thread_ts") == first and not over.is_set()
    )

    def refused() -> list:
        return [
            c for c in slack_api.calls_to("chat.postMessage") if c.args.get("thread_ts") == first and c.status == 503
        ]

    with (
        atlas_serve(env, tmp_path / "serve.log") as port,
        worker_process(env, "one-slot", "--concurrency", "1", "--with-scheduler"),
    ):
        serve = SlackSender(f"http://127.0.0.1:{port}/slack/events")
        assert serve.event(mention("What does ORB-1202 mean?", ts=first)).status == 200
        wait_for(refused, timeout=60, what="Slack refusing the first answer")
        assert serve.event(mention("What does ORB-1305 mean?", ts=second, eid="Ev0SECOND")).status == 200
        wait_for(lambda: _answers(slack_api, second), timeout=30, what="the second answer, from the one slot")
        assert _answers(slack_api, first) == []  # Slack is still down for the first thread
        tries = len(refused())
        wait_for(lambda: len(refused()) > tries, timeout=30, what="the first answer tried again while Slack is down")
        over.set()
        wait_for(lambda: _answers(slack_api, first), timeout=30, what="the first answer once Slack is back")
        ids = [k.decode().rsplit(":", 1)[1] for k in redis_conn.scan_iter("atlas:run:*") if k.count(b":") == 2]
        runs = wait_for(
            lambda: _delivered(redis_conn, ids), timeout=30, what="both runs to record their delivery"
        )  # before the kill
    assert len(_answers(slack_api, first)) == 1 and len(_answers(slack_api, second)) == 1
    assert sorted(r.status for r in runs) == ["done", "done"] and all(r.surface.undelivered is None for r in runs)
