"""A cited section changed by a push webhook: how soon its threads hear of it, and that they hear once (issue 39).

The stack of the end-to-end test (tests/workers/knowledge/test_source_changed_loop.py): `atlas serve`'s Slack and
GitHub endpoints in this process, one real `atlas worker`, an embedded Redis, the Slack and GitHub stand-ins, the
OpenAI stand-in scripted to read one docs section and cite it. THREADS threads are answered from the same
section; the section is then changed on the GitHub stand-in and a signed push delivered. Rows: seconds from the
delivery to the last thread's note, notes posted; then the same push redelivered under a new delivery id, and a
push that only re-wraps the section's lines (notes added: 0 each).
"""

from __future__ import annotations

import copy
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench.report import Table

if TYPE_CHECKING:
    from tests.support.triage_inbox_harness import Inbox

THREADS = 5
GOAL_SECONDS = 60.0
SETUP = "docs/guides/setup.md"
CHANNEL = "C0HELP"


def run() -> list[Table]:
    from atlas import embedded_redis
    from tests.standins.github_webhooks import deliver
    from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_text
    from tests.standins.slack_events import mention
    from tests.support.processes import wait_for
    from tests.support.triage_inbox_harness import inbox
    from tests.workers.knowledge.test_source_changed_loop import _push

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        url = embedded_redis.ensure_running(home / "redis")
        rows: list[list[object]] = []
        try:
            with (
                ScriptedModel() as model,
                inbox(home, url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box,
                box.worker("bench-watch"),
            ):
                threads = [f"17000100{i:02d}.000100" for i in range(THREADS)]
                for i, ts in enumerate(threads):
                    model.script(
                        reply_calls([Call("get_doc_section", {"doc_id": "guides-setup", "heading": "Redis"}, f"c{i}")]),
                        reply_text("Set `ROCKET_REDIS_URL` to your server (guides-setup)."),
                    )
                    box.send.event(mention(f"redis question {i}?", channel=CHANNEL, ts=ts))
                    wait_for(lambda ts=ts: _notes(box, ts, "ROCKET_REDIS_URL"), timeout=60, what="an answer")

                def told() -> int:
                    return sum(len(_notes(box, ts, "has changed")) for ts in threads)

                wait_for(
                    lambda: len(box.conn.hkeys("atlas:watch:src:doc:guides-setup§Redis")) == THREADS, what="watched"
                )
                box.github.repo.files[SETUP] = (
                    b"# Setting up Rocket\n\nIntro.\n\n## Redis\n\nSet ROCKET_REDIS_URL, or pass --redis.\n"
                )
                started = time.perf_counter()
                deliver(box.webhook_url, "push", _push(box, SETUP), delivery="bench-push-1")
                wait_for(lambda: told() == THREADS, timeout=120, what="every thread told")
                rows.append(["section changed, push delivered", round(time.perf_counter() - started, 2), told()])
                for label, delivery, body in (
                    ("the same push, a new delivery id", "bench-push-2", None),
                    (
                        "lines re-wrapped only",
                        "bench-push-3",
                        b"# Setting up Rocket\n\nIntro.\n\n## Redis\n\nSet ROCKET_REDIS_URL,\nor pass   --redis.\n",
                    ),
                ):
                    if body is not None:
                        box.github.repo.files[SETUP] = body
                    before, started = told(), time.perf_counter()
                    deliver(box.webhook_url, "push", _push(box, SETUP), delivery=delivery)
                    wait_for(lambda d=delivery: _finished(box, d), timeout=120, what="the push job")
                    rows.append([label, round(time.perf_counter() - started, 2), told() - before])
        finally:
            embedded_redis.stop(home / "redis")
    met = float(str(rows[0][1])) <= GOAL_SECONDS and rows[0][2] == THREADS and rows[1][2] == 0 and rows[2][2] == 0
    return [
        Table(
            f"Notes of a cited section changed by a push ({THREADS} threads citing it)",
            ["delivery", "seconds to the last note (or the job's end)", "notes posted"],
            rows,
            goal=f"every thread told within {GOAL_SECONDS:.0f} s, once; nothing for a redelivery or a re-wrap",
            met=met,
        )
    ]


def _notes(box: Inbox, ts: str, needle: str) -> list[str]:
    return [m.get("text", "") for m in copy.deepcopy(box.slack.thread(CHANNEL, ts)) if needle in m.get("text", "")]


def _finished(box: Inbox, delivery: str) -> bool:
    """The push job has run: nothing left in the queue and nothing started."""
    from rq import Queue

    queue = Queue(box.settings.queue_name, connection=box.conn)
    return queue.count == 0 and not queue.started_job_registry.get_job_ids()
