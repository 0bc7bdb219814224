"""The Undo of a triage card (issue 36 item 5), end to end: a GitHub webhook, a real worker, the Slack stand-in's
channel and clicks, the GitHub stand-in's routes as GitHub documents them."""

from __future__ import annotations

import copy
from pathlib import Path

from rq import Queue

from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, TRACEBACK, actions, button, inbox, text_of
from workers.approvals import audit
from workers.new_issues import claim, undo
from workers.runs.job_names import EXPIRE_STEP
from workers.triage import live, outcomes

DUP_TITLE = "KeyError 'retry_policy' when the scheduler starts"
DUP_BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"
OUTSIDER = "U0OUTSIDE"
ACTIONS = "duplicates=draft,labels=draft,reply=off"


def test_undo_reopens_removes_the_labels_comments_once_and_counts_as_a_false_claim(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_ACTIONS=ACTIONS) as box:
        issue = box.open_issue(DUP_TITLE, DUP_BODY)
        number = issue["number"]
        with box.worker("undo-w1"):
            (card,) = box.cards(timeout=90)
            assert sorted(actions(card)) == ["duplicates", "labels"] and "undo" not in actions(card)  # nothing done yet
            assert box.click(card, "duplicates") == 200
            assert box.click(card, "labels") == 200
            now = wait_for(
                lambda: "undo" in actions(c := box.card_now(card)) and c, what="the Undo on the card", timeout=90
            )
            assert actions(now) == ["undo"] and "Undo what Atlas did: reopen the issue and remove" in text_of(now)
            added = [n["name"] for n in box.github.repo.issues[number]["labels"]]
            assert added and box.github.repo.issues[number]["state"] == "closed"
            assert box.click(now, "undo", user=OUTSIDER) == 200  # not an approver: refused, nothing runs
            wait_for(lambda: any(e["user"] == OUTSIDER for e in box.slack.ephemerals()), what="the outsider told")
            assert box.github.requests("DELETE") == [] and "undo" in actions(box.card_now(card))
            assert box.click(now, "undo") == 200
            assert box.click(now, "undo") == 200  # a double click
            done = wait_for(
                lambda: "Undone by" in text_of(c := box.card_now(card)) and c, what="the Undo applied", timeout=90
            )
            assert actions(done) == []
        reopened = [p for p in box.github.requests("PATCH") if p.body.get("state") == "open"]
        assert [p.body for p in reopened] == [{"state": "open", "state_reason": "reopened"}]
        removed = box.github.requests("DELETE")
        assert sorted(c.path.rsplit("/", 1)[1] for c in removed) == sorted(added)  # each label once
        assert box.github.repo.issues[number]["state"] == "open" and box.github.repo.issues[number]["labels"] == []
        comments = [c.body["body"] for c in box.github.requests("POST", r"/comments$")]
        undone = [c for c in comments if "undid Atlas's triage" in c]
        assert len(undone) == 1 and "not a duplicate of #1" in undone[0] and "approved by maint on Slack" in undone[0]
        run_id = claim.run_of(box.conn, "acme/rocket", number) or ""
        results = [e for e in audit.entries(box.conn) if e.kind == "result" and e.get("run") == run_id]
        assert sorted(str(e.get("tool")) for e in results) == [
            "add_labels",
            "close_issue",
            "post_comment",
            "post_comment",
            "remove_labels",
            "reopen_issue",
        ]
        seen = [o for o in outcomes.load_all(box.conn, "acme/rocket") if o.source == "undo"]
        assert {(o.kind, o.value, o.accepted) for o in seen} == {
            ("duplicate", "1", False),
            *(("label", n, False) for n in added),
        }
        report = live.report(box.conn, "acme/rocket", 30, box.settings.data_dir, box.settings.home)
        assert report.undone == 1 + len(added) and report.duplicates.claims == 1 and report.duplicates.right == 0
        assert report.labels.right == 0  # each approved label, undone: false
        assert box.run(run_id).status == "done"


def test_after_seven_days_the_undo_is_gone_and_a_late_click_is_told_so(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_ACTIONS="duplicates=draft,labels=off,reply=off") as box:
        issue = box.open_issue(DUP_TITLE, DUP_BODY)
        with box.worker("undo-w2"):
            (card,) = box.cards(timeout=90)
            assert box.click(card, "duplicates") == 200
            offered = copy.deepcopy(
                wait_for(lambda: "undo" in actions(c := box.card_now(card)) and c, what="the Undo", timeout=90)
            )
            assert "Undo what Atlas did: reopen the issue." in text_of(offered)
            run_id = button(offered, "undo").split(".")[0]
            # the expiry job, as RQ's scheduler enqueues it at the Undo's deadline (7 days on)
            Queue(box.settings.queue_name, connection=box.conn).enqueue(EXPIRE_STEP, run_id, undo.STEP)
            gone = wait_for(
                lambda: "no longer offered" in text_of(c := box.card_now(card)) and c, what="the Undo gone", timeout=90
            )
            assert actions(gone) == []
            assert box.click(offered, "undo") == 200  # a late click on the card as it was
            told = wait_for(
                lambda: [e for e in box.slack.ephemerals() if e["user"] == MAINTAINER], what="the late click told"
            )
            assert "Expired" in told[-1]["text"]
        assert box.github.repo.issues[issue["number"]]["state"] == "closed"  # nothing was undone
        assert box.github.requests("DELETE") == [] and not [
            p for p in box.github.requests("PATCH") if p.body.get("state") == "open"
        ]
        assert [o for o in outcomes.load_all(box.conn, "acme/rocket") if o.source == "undo"] == []
