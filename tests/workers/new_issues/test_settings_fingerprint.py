"""The settings a triage runs with are the ones its webhook came in under (issue 24): triage settings are
part of `Settings.fingerprint`, the web process's fingerprint rides the webhook job to the triage run,
and a worker started with another ATLAS_TRIAGE_ACTIONS refuses that run instead of triaging it its way."""

from __future__ import annotations

from pathlib import Path

from rq import Queue

from atlas.settings import Settings
from tests.support.triage_inbox_harness import inbox
from tests.workers.new_issues.test_new_issue_triage import DUP_BODY, DUP_TITLE
from workers import wording
from workers.jobs import runs as jobs
from workers.new_issues import claim
from workers.process import runtime

OTHER_ACTIONS = "duplicates=draft,labels=shadow,reply=off"


def test_each_triage_setting_changes_the_fingerprint() -> None:
    base = {"ATLAS_TRIAGE_CHANNEL": "C0TRIAGE"}
    same = Settings.from_env(base).fingerprint
    assert (
        Settings.from_env({**base, "ATLAS_TRIAGE_ACTIONS": ""}).fingerprint == same
    )  # every action draft, as by default
    for extra in (
        {"ATLAS_TRIAGE_ACTIONS": OTHER_ACTIONS},
        {"ATLAS_TRIAGE_CHANNEL": "C0OTHER"},
        {"ATLAS_DISCORD_TRIAGE_CHANNEL": "1300000000000000009"},
        {"ATLAS_TRIAGE_SKIP_WRITERS": "0"},
    ):
        assert Settings.from_env({**base, **extra}).fingerprint != same, extra


def test_a_worker_with_other_triage_actions_refuses_the_web_process_s_triage_run(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url) as box:  # the web process: every action draft
        issue = box.open_issue(DUP_TITLE, DUP_BODY)
        other = Settings.from_env({**box.env, "ATLAS_TRIAGE_ACTIONS": OTHER_ACTIONS})
        assert other.fingerprint != box.settings.fingerprint
        queue = Queue(box.settings.queue_name, connection=box.conn)
        try:
            runtime.install(runtime.build(other))  # a worker deployed with another ATLAS_TRIAGE_ACTIONS
            (webhook,) = queue.get_jobs()
            webhook.perform()  # the index is updated and the issue claimed, under the web's fingerprint
            run_id = claim.run_of(box.conn, "acme/rocket", issue["number"]) or ""
            assert box.run(run_id).settings_fingerprint == box.settings.fingerprint
            assert jobs.continue_run(run_id) == "failed"
            refused = box.run(run_id)
            assert refused.stop_reason == "settings_mismatch" and refused.error == wording.SETTINGS_MISMATCH
            assert refused.triage is not None and refused.triage.actions == [] and box.messages() == []  # no card

            runtime.install(runtime.build(box.settings))  # a worker with the web's settings triages the next issue
            second = box.open_issue(DUP_TITLE + " again", DUP_BODY)
            [job for job in queue.get_jobs() if job.func_name.endswith("apply_event")][-1].perform()
            again = claim.run_of(box.conn, "acme/rocket", second["number"]) or ""
            assert jobs.continue_run(again) == "awaiting_approval" and len(box.messages()) == 1
        finally:
            runtime.install(None)  # type: ignore[arg-type]
