"""Triage and filing runs write through the store and the chat platforms directly, not through the agent's
fenced reporter and keeper: they get parts whose every save and post checks the run's lease first (issue 29).
A job whose lease another job took must neither record a triage nor post its card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis

from atlas.settings import Settings
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.tools_dataset import make_dataset
from workers.errors import LeaseLost
from workers.jobs import runs as jobs
from workers.jobs.fenced import FencedParts
from workers.process import runtime
from workers.runs.state import Origin, RunState
from workers.runs.triage_record import TriageRecord


def _lost() -> None:
    raise LeaseLost("another job took the run")


class Platform:
    def __init__(self) -> None:
        self.posted: list[str] = []

    def triage_card(self, run: Any) -> None:
        self.posted.append(run.id)


class Parts:
    def __init__(self, store: Any, platform: Platform) -> None:
        self.store, self.platform, self.settings = store, platform, "the worker's settings"

    def platform_for(self, kind: str) -> Platform | None:
        return self.platform if kind == "slack" else None


def test_fenced_parts_check_the_lease_before_each_save_and_post_and_leave_reads_alone(redis_conn: redis.Redis) -> None:
    from workers.runs.store import RunStore

    store, platform = RunStore(redis_conn), Platform()
    run = RunState(question="triage #3")
    store.save(run)
    fenced = FencedParts(Parts(store, platform), _lost)
    assert fenced.settings == "the worker's settings" and fenced.store.load(run.id).id == run.id  # reads pass
    with pytest.raises(LeaseLost):
        fenced.store.save(run.model_copy(update={"status": "done"}))
    with pytest.raises(LeaseLost):
        fenced.platform_for("slack").triage_card(run)
    assert store.load(run.id).status == "queued" and platform.posted == []
    assert fenced.platform_for("discord") is None
    held = FencedParts(Parts(store, platform), lambda: None)  # a job still holding its lease: all goes through
    held.platform_for("slack").triage_card(run)
    assert platform.posted == [run.id]


def test_a_triage_job_that_lost_its_lease_records_nothing_and_posts_no_card(
    tmp_path: Path,
    redis_url: str,
    redis_conn: redis.Redis,
    slack_api: SlackAPI,  # noqa: F811
) -> None:
    settings = Settings(
        data_dir=make_dataset(tmp_path / "data"),
        home=tmp_path / "home",
        redis_url=redis_url,
        slack_bot_token=slack_api.token,
        slack_api_url=slack_api.base_url,
        triage=Settings.from_env({"ATLAS_TRIAGE_CHANNEL": "C0TRIAGE"}).triage,
    )
    rt = runtime.build(settings)
    run = RunState(
        question="triage #1",
        origin=Origin(kind="slack", channel="C0TRIAGE"),
        triage=TriageRecord(repo="demo", issue=1),
        settings_fingerprint=settings.fingerprint,
    )
    rt.store.save(run)
    with pytest.raises(LeaseLost):
        jobs._continue(rt, run.id, _lost)
    stored = rt.store.load(run.id)
    assert stored.status == "queued" and stored.triage is not None and stored.triage.suggestions == {}
    assert slack_api.calls_to("chat.postMessage") == []
    jobs._continue(rt, run.id, lambda: None)  # the job that holds the lease triages it: the check above can fail
    after = rt.store.load(run.id)
    assert after.status != "queued" and after.triage is not None and "duplicates" in after.triage.suggestions
