"""Side effects behind Approve/Deny across time and processes, end to end: a card that expires, a run resumed by another
worker process, a worker killed between acting and recording."""

from __future__ import annotations

import json
from pathlib import Path

from tests.standins.responses_api import Call, reply_calls, reply_text
from tests.support.approvals_harness import (
    MAINTAINER,
    decisions,
    outputs_sent,
    stack,
)
from tests.support.processes import wait_for
from workers.approvals import audit, ledger


def test_expiry_ends_the_run_with_a_partial_answer(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url, ttl=2) as s:
        s.model.script(
            reply_calls(
                [Call("close_issue", {"issue_id": 6, "reason": "not_planned", "duplicate_of": None}, "call_x")]
            ),
            reply_text("Nobody approved closing #6, so it is still open."),  # the wrap-up, tools off
        )
        thread = s.ask("close #6 as not planned")
        with s.worker("w1"):
            (card,) = s.cards(thread)
            run = s.run_of(card)
            final = s.wait_final(run.id)
            # the record is final when saved; the wrap-up is posted just after (a loaded machine shows the gap)
            wait_for(lambda: "Nobody approved closing #6" in s.thread_text(thread), what="the wrap-up in the thread")
            assert s.click(card, MAINTAINER) == 200  # too late: changes nothing
            wait_for(lambda: s.api.ephemerals(), what="the too-late note")
        assert final.status == "expired" and final.partial and final.stop_reason == "approval_expired"
        assert final.answer == "Nobody approved closing #6, so it is still open."
        assert outputs_sent(s.model)["call_x"].startswith("Error: nobody approved this in time")
        assert s.model.bodies()[-1]["tool_choice"] == "none"
        assert decisions(s.conn, card).status == "expired" and s.journal() == [] and s.issues().get(6).state == "open"
        assert "Expired" in json.dumps(s.card_now(card)["blocks"]) and "atlas_approval_approve" not in json.dumps(
            s.card_now(card)["blocks"]
        )
        assert "already decided" in s.api.ephemerals()[0]["text"]
        assert [e.get("decision") for e in audit.entries(s.conn) if e.kind == "decision"] == ["expired"]
        s.model.assert_done()


def test_a_different_worker_process_resumes_the_run(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url) as s:
        s.model.script(
            reply_calls([Call("add_labels", {"issue_id": 5, "labels": ["docs"]}, "call_d")]), reply_text("Labeled #5.")
        )
        thread = s.ask("label #5 docs")
        with s.worker("pauser") as first:
            (card,) = s.cards(thread)
            run = s.run_of(card)
            first.terminate()
            first.wait(timeout=30)
        assert first.returncode is not None and s.run_of(card).status == "awaiting_approval"
        with s.worker("resumer"):
            s.click(card, MAINTAINER)
            final = s.wait_final(run.id)
        assert final.status == "done" and len(s.journal()) == 1
        assert s.resume_job(run.id, run.pending[0].step).worker_name == "resumer"
        s.model.assert_done()


def test_a_worker_killed_between_acting_and_recording_is_not_run_again(tmp_path: Path, redis_url: str) -> None:
    """The demo tracker's journal holds the call's key once the write happened, so the survivor settles
    the in-doubt call from it (issue 22 item 24): recorded as done, never written twice, never "check by hand"."""
    marker = tmp_path / "side-effect-done"
    with stack(tmp_path, redis_url) as s:
        s.model.script(
            reply_calls([Call("post_comment", {"issue_id": 4, "body": "Closing the loop: fixed in 3.1.1."}, "call_k")]),
            reply_text("Posted the comment on #4."),
        )
        thread = s.ask("comment on #4")
        card, run = s.approve_then_kill(thread, marker)
        assert len(s.journal()) == 1 and ledger.entry_of(s.conn, run.id, "call_k")["state"] == "executing"
        with s.worker("survivor"):
            final = s.wait_final(run.id, timeout=150)  # a dead worker's RQ scheduler lock can take 61 s to lapse
        assert len(s.journal()) == 1  # not posted a second time
        assert [c.body for c in s.issues().comments(4)] == ["Closing the loop: fixed in 3.1.1."]
        assert outputs_sent(s.model)["call_k"] == "Posted the comment on #4 (https://tracker.example/orbit/issues/4)."
        assert ledger.entry_of(s.conn, run.id, "call_k")["state"] == "done"
        assert "can't tell whether it happened" not in s.thread_text(thread)
        assert "Done:" in json.dumps(s.card_now(card)["blocks"])
        results = [e for e in audit.entries(s.conn) if e.kind == "result"]
        assert [e.get("decision") for e in results] == ["done"] and "found on the tracker" in str(
            results[0].get("result")
        )
        assert final.status == "done"
        s.model.assert_done()
