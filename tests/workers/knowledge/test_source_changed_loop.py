"""Answers corrected when their sources change, end to end on loopback (issue 39): a Slack mention answered by a
real worker from a docs section, then the section changed on the GitHub stand-in and a signed push webhook
delivered: the thread hears once what changed, with the new text; the same delivery again, and the same push
under a new delivery id, tell nothing more; `atlas runs show` lists the note."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import pytest

from atlas.cli import show_run
from tests.standins import github_spec
from tests.standins.github_webhooks import deliver, payload
from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_text
from tests.standins.slack_events import mention
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import Inbox, inbox
from workers.knowledge import watches

HELP = "C0HELP"
SETUP = "docs/guides/setup.md"


def _push(box: Inbox, *modified: str) -> dict[str, Any]:
    """A push to the default branch whose one commit modified these paths, as GitHub sends it."""
    push = github_spec.spec()["x-webhooks"]["push"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    commit = github_spec._fill(github_spec._resolve(push)["properties"]["commits"]["items"], 0)
    commit.update({"added": [], "modified": list(modified), "removed": []})
    return payload("push", box.github.repo, ref="refs/heads/main", commits=[commit])


def _texts(box: Inbox, thread: str, needle: str) -> list[str]:
    return [m.get("text", "") for m in copy.deepcopy(box.slack.thread(HELP, thread)) if needle in m.get("text", "")]


def test_a_cited_section_changed_by_a_push_is_told_once_in_its_thread(
    tmp_path: Path, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with (
        ScriptedModel() as model,
        inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box,
        box.worker("watch-w1"),
    ):
        model.script(
            reply_calls([Call("get_doc_section", {"doc_id": "guides-setup", "heading": "Redis"}, "call_doc")]),
            reply_text("Set `ROCKET_REDIS_URL` to your server (guides-setup)."),
        )
        thread = "1700008000.000100"
        assert box.send.event(mention("how do I point rocket at my redis?", channel=HELP, ts=thread)).status == 200
        wait_for(lambda: _texts(box, thread, "ROCKET_REDIS_URL"), timeout=60, what="the answer")
        run_id = wait_for(
            lambda: next((r for r in _runs(box) if r.origin.message_ts == thread and r.final), None),
            what="the final run",
        ).id
        assert wait_for(lambda: watches.watched(box.conn, 3600), what="the cited section watched") == [
            "doc:guides-setup§Redis"
        ]

        box.github.repo.files[SETUP] = (
            b"# Setting up Rocket\n\nIntro.\n\n## Redis\n\nSet ROCKET_REDIS_URL, or pass --redis on the command line.\n"
        )
        started = time.monotonic()
        assert deliver(box.webhook_url, "push", _push(box, SETUP), delivery="push-1")[0] == 202
        [note] = wait_for(
            lambda: _texts(box, thread, "has changed"), timeout=60, what="the note of the changed section"
        )
        print(f"note posted {time.monotonic() - started:.2f} s after the push webhook")  # the goal: within a minute
        assert "guides-setup § Redis" in note and "pass --redis on the command line" in note

        assert deliver(box.webhook_url, "push", _push(box, SETUP), delivery="push-1")[1].strip() == "duplicate delivery"
        assert (
            deliver(box.webhook_url, "push", _push(box, SETUP), delivery="push-2")[0] == 202
        )  # the same push, redelivered
        wait_for(lambda: _done(box, 2), what="both push jobs finished")
        assert len(_texts(box, thread, "has changed")) == 1
        assert show_run.show(box.settings, run_id, as_json=False) == 0
        assert "source changed, told: guides-setup § Redis" in capsys.readouterr().out
    model.assert_done()


def _runs(box: Inbox) -> list[Any]:
    return [box.run(k.decode().rsplit(":", 1)[1]) for k in box.conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def _done(box: Inbox, pushes: int) -> bool:
    """RQ kept the results of `pushes` finished push jobs."""
    from rq import Queue
    from rq.registry import FinishedJobRegistry

    registry = FinishedJobRegistry(queue=Queue(box.settings.queue_name, connection=box.conn))
    jobs = [registry.get_job_ids()]
    done = [
        j
        for j in jobs[0]
        if (job := Queue(box.settings.queue_name, connection=box.conn).fetch_job(j))
        and job.args
        and job.args[0] == "push"
    ]
    return len(done) >= pushes
