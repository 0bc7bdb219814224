"""workers/jobs/runs.py in one process: where a run reports, by where it came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis
from slack_sdk import WebClient

from atlas.settings import Settings
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.tools_dataset import make_dataset
from workers.agent.reporting import FanOut
from workers.jobs import runs as jobs
from workers.process import runtime
from workers.runs.queueing import submit
from workers.runs.state import Origin
from workers.runs.store import RUN_TTL_SECONDS, events_key

QUESTION = "What does ORB-1202 mean?"


def test_a_slack_run_reports_in_its_thread_and_a_cli_run_in_its_event_stream(
    tmp_path: Path,
    redis_url: str,
    redis_conn: redis.Redis,
    slack_api: SlackAPI,  # noqa: F811
) -> None:
    """`atlas ask` tails a CLI run's stream; a Slack run's progress is its thread, and nothing reads a
    stream of it, so it gets none (4 Redis commands fewer per one-step run)."""
    settings = Settings(
        data_dir=make_dataset(tmp_path / "data"),
        home=tmp_path / "home",
        redis_url=redis_url,
        slack_bot_token=slack_api.token,
        slack_api_url=slack_api.base_url,
    )
    runtime.install(runtime.build(settings))
    try:
        origin = Origin(
            kind="slack",
            user="U0ALICE",
            channel="C0GENERAL",
            thread_ts="1700000001.000100",
            message_ts="1700000001.000100",
            team="T0TEST",
        )
        slack = submit(redis_conn, "unused-queue", QUESTION, origin)
        assert jobs.continue_run(slack.id) == "done"
        assert len(slack_api.thread("C0GENERAL", "1700000001.000100")) == 2  # the progress message, the answer
        assert not redis_conn.exists(events_key(slack.id))

        cli = submit(redis_conn, "unused-queue", QUESTION, Origin(kind="cli"))
        assert jobs.continue_run(cli.id) == "done"
        kinds = [e["kind"] for _, e in runtime.current().store.events(cli.id, block_ms=0)]
        assert kinds[0] == "step" and kinds[-1] == "answer"
        assert 0 < redis_conn.ttl(events_key(cli.id)) <= RUN_TTL_SECONDS  # set by the job's first event only
    finally:
        runtime.install(None)  # type: ignore[arg-type]


def test_a_worker_posts_every_slack_run_through_the_clients_it_built_once(
    tmp_path: Path,
    redis_url: str,
    redis_conn: redis.Redis,
    slack_api: SlackAPI,
    monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    """Three WebClients per job (the thread's two and the assistant view's) cost about 0.05 ms of each run."""
    settings = Settings(
        data_dir=make_dataset(tmp_path / "data"),
        home=tmp_path / "home",
        redis_url=redis_url,
        slack_bot_token=slack_api.token,
        slack_api_url=slack_api.base_url,
    )
    rt = runtime.build(settings)
    assert rt.slack is not None
    built: list[WebClient] = []
    real_init = WebClient.__init__

    def counting_init(self: WebClient, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(WebClient, "__init__", counting_init)
    runtime.install(rt)
    try:
        for n in (1, 2):
            origin = Origin(
                kind="slack",
                user="U0ALICE",
                channel="C0GENERAL",
                thread_ts=f"170000000{n}.000100",
                message_ts=f"170000000{n}.000100",
                team="T0TEST",
            )
            run = submit(redis_conn, "unused-queue", QUESTION, origin)
            reporter = jobs.reporter_for(rt, run)
            assert isinstance(reporter, FanOut)
            thread, assistant = reporter.reporters
            assert all(
                a is b
                for a, b in zip(
                    (thread.client, thread.create_client, assistant.client),  # type: ignore[attr-defined]
                    (rt.slack.client, rt.slack.create_client, rt.slack.client),
                    strict=True,
                )
            )
            assert jobs.continue_run(run.id) == "done"
            assert len(slack_api.thread("C0GENERAL", f"170000000{n}.000100")) == 2
        assert built == []  # no job built a client of its own
    finally:
        runtime.install(None)  # type: ignore[arg-type]


def test_a_job_opens_its_data_folder_once(
    tmp_path: Path, redis_url: str, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer's sources are settled against the corpus the job's tools read: each open stats every doc."""
    settings = Settings(data_dir=make_dataset(tmp_path / "data"), home=tmp_path / "home", redis_url=redis_url)
    rt = runtime.build(settings)
    opened: list[Path] = []
    real_open = runtime.open_corpus

    def counting_open(data_dir: Path, *args: Any) -> Any:
        opened.append(data_dir)
        return real_open(data_dir, *args)

    monkeypatch.setattr(runtime, "open_corpus", counting_open)
    runtime.install(rt)
    try:
        run = submit(redis_conn, "unused-queue", QUESTION, Origin(kind="cli"))
        assert jobs.continue_run(run.id) == "done"
        assert opened == [settings.data_dir]
        assert rt.store.load(run.id).sources  # the offline answer quotes a doc, settled as a source
    finally:
        runtime.install(None)  # type: ignore[arg-type]
