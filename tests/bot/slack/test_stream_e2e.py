"""The answer streamed into the progress message, end to end: signed Slack requests -> `atlas serve` ->
Redis/RQ -> real `atlas worker` processes (one of them SIGKILLed mid-stream) -> the Slack stand-in."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import redis

from bot.slack import wording
from bot.slack.stream import PIECE_CHARS, SEPARATOR
from tests.bot.slack.test_e2e import env, serving_app  # noqa: F401  (the e2e environment and atlas serve)
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import assistant_message, assistant_thread_started
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.standins.turns import reply_text
from tests.support.processes import wait_for, worker_process
from workers.runs.state import RunState
from workers.runs.store import RunStore

DM = "D0ALICE"


def _runs(conn: redis.Redis) -> list[RunState]:
    store = RunStore(conn)
    return [store.load(k.decode().split(":")[-1]) for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def _streamed_text(message: dict) -> str:
    return "".join(c["text"] for c in message["chunks"] if c["type"] == "markdown_text")


def _long_answer() -> str:
    """Three paragraphs, each close to an append's size, so the answer takes three appends."""
    return "\n\n".join(f"PART-{n} " + ("ORB-1202 is never retried; see #4. " * 38).strip() for n in (1, 2, 3))


def test_a_worker_killed_mid_stream_leaves_one_answer_message_finished_by_the_retry(
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
    scripted_model: ScriptedModel,
    tmp_path: Path,
) -> None:
    answer = _long_answer()
    assert len(answer) > 2 * PIECE_CHARS
    scripted_model.script(reply_text(answer))
    env = {**env, **scripted_model.env(), "ATLAS_WORKER_HEARTBEAT_TTL": "3", "ATLAS_WORKER_MAINTENANCE": "2"}
    held = slack_api.hold("chat.appendStream", lambda args: "PART-2" in json.dumps(args.get("chunks")))
    with serving_app(env, tmp_path) as serve:  # the web process shares the workers' settings
        thread = "1700040000.000100"
        slack_api.open_assistant_thread(DM, thread)
        assert serve.event(assistant_thread_started(thread_ts=thread)).status == 200
        assert (
            serve.event(assistant_message("What does ORB-1202 mean?", thread_ts=thread, ts="1700040001.000100")).status
            == 200
        )

        with worker_process({**env, "ATLAS_HOME": str(tmp_path / "home-a")}, "stream-a") as worker_a:
            assert held.reached.wait(60), "worker A never reached the answer's second append"
            [run] = _runs(redis_conn)
            assert run.final and 0 < run.surface.answer_streamed < len(answer)  # saved: what Slack has so far
            os.killpg(worker_a.pid, signal.SIGKILL)  # dies mid-stream, its append in flight
            worker_a.wait(timeout=10)
        held.release.set()  # the held append is answered only now, unprocessed: it never got through

        with worker_process({**env, "ATLAS_HOME": str(tmp_path / "home-b")}, "stream-b"):
            [message] = wait_for(
                lambda: [m for m in slack_api.thread(DM, thread) if m.get("chunks") and m.get("blocks")],
                timeout=90,
                interval=0.2,
                what="the retried job to finish the stream",
            )
            wait_for(  # the job ends after Slack shows the message: its record is saved last, before the worker stops
                lambda: (s := _runs(redis_conn)[0].surface).answer_ts and s.answer_streamed == len(answer),
                timeout=30,
                interval=0.2,
                what="the retried job to save the streamed answer",
            )

    greeting, *answers = slack_api.thread(DM, thread)
    assert answers == [message] and not message["streaming"]  # one message: progress, then the answer
    assert _streamed_text(message) == wording.PROGRESS_START + SEPARATOR + answer  # every piece exactly once, in order
    assert [b["type"] for b in message["blocks"]][-1] == "context_actions"
    assert (
        len(slack_api.calls_to("chat.startStream")) == 1 and len(slack_api.calls_to("chat.postMessage")) == 1
    )  # the greeting
    [run] = _runs(redis_conn)
    assert run.surface.answer_ts == [message["ts"]] and run.surface.answer_streamed == len(answer)
