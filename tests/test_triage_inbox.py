"""The triage inbox end to end (issue 24): a GitHub webhook, a real worker, the Slack stand-in's channel, clicks."""

from __future__ import annotations

from pathlib import Path

from tests.processes import wait_for
from tests.triage_inbox_harness import TRACEBACK, actions, button, inbox, text_of
from workers.approvals import audit
from workers.inbox import claim

DUP_TITLE = "KeyError 'retry_policy' when the scheduler starts"
DUP_BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def test_a_duplicate_gets_one_card_and_approve_comments_once_and_closes_as_duplicate(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url) as box:
        issue = box.open_issue(DUP_TITLE, DUP_BODY, delivery="d-open")
        number = issue["number"]
        with box.worker("inbox-w1"):
            (card,) = box.cards()
            shown = text_of(card)
            assert f"#{number}" in shown and "zoe" in shown and f"https://github.com/acme/rocket/issues/{number}" in shown
            assert "Close as duplicate of" in shown and "#1 Scheduler crashes on startup" in shown
            assert set(actions(card)) >= {"duplicates", "labels"}
            assert "scheduler" in shown  # a label of the repository's own
            assert box.github.requests("POST") == [] and box.github.requests("PATCH") == []  # nothing before a click
            box.deliver_opened(issue, delivery="d-open")  # a redelivery
            box.deliver_opened(issue, delivery="d-open-2")  # the same event under another delivery id
            box.deliver_opened(issue, action="edited", delivery="d-edit")
            assert box.click(card, "duplicates") == 200
            run_id = button(card, "duplicates").split(".")[0]
            wait_for(lambda: "done" in text_of(box.card_now(card)) and "Approved by" in text_of(box.card_now(card)), what="the card updated")
            now = box.card_now(card)
            assert "duplicates" not in actions(now) and "labels" in actions(now)  # the other actions keep their buttons
        assert len(box.messages()) == 1  # one card, whatever was redelivered
        [comment] = box.github.requests("POST", r"/comments$")
        assert comment.path == f"/repos/acme/rocket/issues/{number}/comments"
        assert "Duplicate of #1." in comment.body["body"] and "Drafted by Atlas, approved by maint on Slack" in comment.body["body"]
        [patch] = box.github.requests("PATCH")
        assert patch.body == {"state": "closed", "state_reason": "duplicate", "duplicate_issue_id": box.github.repo.issues[1]["id"]}
        assert claim.run_of(box.conn, "acme/rocket", number) == run_id
        run = box.run(run_id)
        assert run.triage is not None and run.triage.suggestions["duplicates"][0]["id"] == 1
        results = [e for e in audit.entries(box.conn) if e.kind == "result" and e.get("run") == run_id]
        assert sorted(str(e.get("tool")) for e in results) == ["close_issue", "post_comment"]
