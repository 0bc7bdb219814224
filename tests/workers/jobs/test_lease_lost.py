"""A job that stalled past its run's lease while another job took the run stops: no save, no post (issue 29).

Under load, a `--concurrency N` worker's job can stall long enough that its RQ heartbeat and its lease
both lapse; RQ retries the job, and the retry takes the lease and answers the run. Here both jobs run
in one process against the real Redis: job A is held inside its model call, its lease lapses (the key
expires on the server, A's clock moves past the TTL), job B takes the run and answers it, then A goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.tools_dataset import make_dataset
from workers.agent.model import Model, ModelReply, ModelRequest
from workers.jobs import runs as jobs
from workers.process import runtime
from workers.runs import lease
from workers.runs.queueing import submit
from workers.runs.state import Origin
from workers.runs.store import run_key

QUESTION = "What does ORB-1202 mean?"
THREAD = ("C0GENERAL", "1700000001.000100")
WAIT = 10.0  # the most any handshake below may take (a deadline, never a pause)


class HeldOnce:
    """The real offline model, whose first call waits until the test lets it go (job A's stall)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.inside = threading.Event()
        self.go = threading.Event()
        self._first = True

    def respond(self, request: ModelRequest) -> ModelReply:
        if self._first:
            self._first = False
            self.inside.set()
            assert self.go.wait(WAIT), "the test never let job A go on"
        return self.model.respond(request)


def test_a_job_whose_lease_another_job_took_neither_saves_nor_posts(
    tmp_path: Path,
    redis_url: str,
    redis_conn: redis.Redis,
    slack_api: SlackAPI,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = Settings(
        data_dir=make_dataset(tmp_path / "data"),
        home=tmp_path / "home",
        redis_url=redis_url,
        slack_bot_token=slack_api.token,
        slack_api_url=slack_api.base_url,
    )
    rt = runtime.build(settings)
    held = HeldOnce(rt.model)
    rt.model = held
    runtime.install(rt)
    try:
        origin = Origin(
            kind="slack", user="U0ALICE", channel=THREAD[0], thread_ts=THREAD[1], message_ts=THREAD[1], team="T0TEST"
        )
        run = submit(redis_conn, "unused-queue", QUESTION, origin)
        got: list[object] = []
        job_a = threading.Thread(target=lambda: got.append(jobs.continue_run(run.id)), name="job-a")
        job_a.start()
        assert held.inside.wait(WAIT)  # A holds the lease and is inside its first model call

        # A stalls past its TTL: the key expires on the server, and A's clock has moved on as much.
        redis_conn.delete(lease.lease_key(run.id))
        real_clock = time.monotonic
        monkeypatch.setattr(lease, "_clock", lambda: real_clock() + 10 * settings.worker_heartbeat_ttl, raising=False)

        assert jobs.continue_run(run.id) == "done"  # B, RQ's retry of the abandoned job, takes the run and answers
        answered = redis_conn.get(run_key(run.id))
        calls = len(slack_api.calls)
        assert len(slack_api.thread(*THREAD)) == 2  # the progress message (A's, taken over by B) and B's answer

        with caplog.at_level(logging.WARNING, logger="atlas.jobs"):
            held.go.set()
            job_a.join(WAIT)
        assert not job_a.is_alive()
        assert [
            c.method for c in slack_api.calls[calls:]
        ] == []  # nothing more reached Slack: no second answer, no progress
        assert len(slack_api.thread(*THREAD)) == 2  # still one answer
        assert redis_conn.get(run_key(run.id)) == answered  # B's final record, not saved over
        assert got == ["lost"]
        lines = [r.getMessage() for r in caplog.records if run.id in r.getMessage()]
        assert len(lines) == 1 and "another job took the run" in lines[0]
    finally:
        runtime.install(None)  # type: ignore[arg-type]
