"""A worker SIGKILLed while it holds GitHub's write turn (issue 35 item A): its approved write provably never
left, so the next worker sends it, once, instead of reporting it "may or may not have happened"; and the dead
holder's turn lapses within its short lease, so the writes behind it go on."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.support.approvals_harness import FAULTS
from tests.support.paths import REPO
from tests.support.processes import wait_for, worker_process
from tests.support.triage_inbox_harness import TRACEBACK, button, inbox, text_of
from workers.approvals import audit, ledger

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def test_an_approved_write_whose_worker_died_holding_the_turn_is_sent_once_by_the_next_worker(
    tmp_path: Path, redis_url: str
) -> None:
    marker = tmp_path / "in-the-turn"
    with inbox(tmp_path, redis_url) as box:
        issue = box.open_issue(TITLE, BODY)
        faulty = {
            **box.env,
            "PYTHONPATH": os.pathsep.join([str(FAULTS), str(REPO)]),
            "ATLAS_FAULT_HANG_IN_WRITE_TURN": str(marker),
        }
        with worker_process(faulty, "holder") as holder:
            (card,) = box.cards()
            assert box.click(card, "labels") == 200
            wait_for(marker.exists, what="the approved write to take GitHub's write turn")
            os.killpg(holder.pid, signal.SIGKILL)
            holder.wait(timeout=10)
        run_id, call_id = button(card, "labels").split(".", 1)
        entry = ledger.entry_of(box.conn, run_id, call_id)
        assert entry is not None and entry["state"] == "executing"
        assert entry.get("sent") is False  # claimed, never sent: the next attempt may send it
        assert box.github.requests("POST", r"/labels$") == []
        with box.worker("survivor"):
            wait_for(
                lambda: box.github.requests("POST", r"/labels$"),
                timeout=90,
                what="the label write sent by the survivor",
            )
            wait_for(lambda: "Approved by" in text_of(box.card_now(card)), timeout=30, what="the card updated")
        [sent] = box.github.requests("POST", r"/labels$")
        assert sent.path == f"/repos/acme/rocket/issues/{issue['number']}/labels"
        assert (ledger.entry_of(box.conn, run_id, call_id) or {})["state"] == "done"
        results = [e for e in audit.entries(box.conn) if e.kind == "result"]
        assert [e.get("decision") for e in results] == ["done"]
        assert "may or may not" not in text_of(box.card_now(card)) and "can't tell" not in text_of(box.card_now(card))
