"""No dead ends (issue 36 item 5), through the webhook, a real worker, the GitHub and Slack stand-ins: a claim
follows its original's own duplicate chain to the open issue and says so, and the comment tells the reporter how
to have the issue reopened; a chain that loops proposes no close; an original closed as completed or not planned
is named so. Every branch of the chain on its own: `follow` with a scripted tracker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.standins.github_repo import Repo
from tests.standins.github_webhooks import deliver, payload, sent_by
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, Inbox, actions, button, inbox, text_of
from workers.new_issues import claim, wording
from workers.new_issues.originals import Hop, Original, Refusal, follow

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def _closed_as_duplicate_of_4(repo: Repo) -> None:
    """#1, the report a new issue resembles most, was closed by hand as a duplicate of #4 (still open)."""
    repo.add_comment(1, "Duplicate of #4", author="maya")
    repo.edit_issue(1, state="closed", state_reason="duplicate")


def _card_of(box: Inbox, number: int) -> dict[str, Any]:
    run_id = wait_for(lambda: claim.run_of(box.conn, "acme/rocket", number), what=f"#{number}'s run", timeout=90)
    return wait_for(
        lambda: next((m for m in box.messages() if any(run_id in button(m, k) for k in actions(m))), None),
        what=f"#{number}'s card",
        timeout=90,
    )


def _run_done(box: Inbox, number: int) -> Any:
    run_id = wait_for(lambda: claim.run_of(box.conn, "acme/rocket", number), what=f"#{number}'s run", timeout=90)
    return wait_for(
        lambda: (r := box.run(run_id)).status in ("awaiting_approval", "done") and r, what="the triage", timeout=90
    )


def test_a_claim_follows_the_chain_to_the_open_issue_refuses_a_loop_and_names_not_planned(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, prepare=_closed_as_duplicate_of_4) as box:
        repo = box.github.repo
        first = box.open_issue(TITLE, BODY)
        with box.worker("chain-w1"):
            card = _card_of(box, first["number"])
            shown = text_of(card)
            assert "Close as duplicate of" in shown and "#4 Scheduler cron expression" in shown, shown
            assert "#1 was itself closed as a duplicate" in shown and "#1 → #4" in shown
            assert box.click(card, "duplicates") == 200
            wait_for(lambda: box.github.requests("PATCH"), what="the close", timeout=90)

            # #4 is closed as a duplicate of #1 in GitHub's UI: #1 → #4 → #1 loops, so no close is proposed
            looped = repo.add_comment(4, "Duplicate of #1", author="maya")
            body = payload("issue-comment-created", repo, action="created", issue=repo.issues[4], comment=looped)
            assert deliver(box.webhook_url, "issue_comment", sent_by(body, "maya"))[0] == 202
            closed = payload(
                "issues-closed",
                repo,
                action="closed",
                issue=repo.edit_issue(4, state="closed", state_reason="duplicate"),
            )
            assert deliver(box.webhook_url, "issues", sent_by(closed, "maya"))[0] == 202
            wait_for(
                lambda: any("Duplicate of #1" in str(c.get("body")) for c in _stored_comments(box, 4)),
                what="the stored comment",
                timeout=60,
            )
            second = box.open_issue(TITLE, BODY)
            run = _run_done(box, second["number"])
            assert run.triage is not None and not any(a.kind == "duplicates" for a in run.triage.actions)
            assert any(
                loop in d for d in run.triage.dropped for loop in ("loops (#1 → #4 → #1)", "loops (#4 → #1 → #4)")
            ), run.triage.dropped

            # #4 closed as not planned and #11 (the second report, open) closed as completed: the claim names either
            # with how it was closed, never silently
            reason = payload(
                "issues-reopened",
                repo,
                action="reopened",
                issue=repo.edit_issue(4, state="open", state_reason="reopened"),
            )
            assert deliver(box.webhook_url, "issues", sent_by(reason, "maya"))[0] == 202
            repo.edit_issue(4, state="closed", state_reason="not_planned")
            repo.edit_issue(second["number"], state="closed", state_reason="completed")
            third = box.open_issue(TITLE, BODY)
            shown = text_of(_card_of(box, third["number"]))
            assert (
                f"#{second['number']} was closed as completed: it may already be fixed there" in shown
                or "#4 was closed as not planned" in shown
            ), shown
        [comment] = [
            c
            for c in box.github.requests("POST", r"/comments$")
            if c.path.endswith(f"/issues/{first['number']}/comments")
        ]
        text = comment.body["body"]
        assert text.startswith("Duplicate of #4.") and wording.REOPEN_HINT in text and "#1 → #4" in text
        [patch] = box.github.requests("PATCH")
        assert patch.body["duplicate_issue_id"] == repo.issues[4]["id"]


def _stored_comments(box: Inbox, number: int) -> list[dict[str, Any]]:
    from datasets.github.store import Store

    store = Store(box.settings.data_dir)
    try:
        return (store.exported(number) or {}).get("comments") or []
    finally:
        store.close()


def test_follow_ends_at_the_open_issue_says_how_a_closed_one_ended_and_refuses_loops_and_unknowns() -> None:
    tracker = {
        1: Hop("closed", "duplicate", 2),
        2: Hop("closed", "duplicate", 3),
        3: Hop("open", None, None),
        4: Hop("closed", "completed", None),
        5: Hop("closed", "not_planned", None),
        6: Hop("closed", "duplicate", 7),
        7: Hop("closed", "duplicate", 6),
        8: Hop("closed", "duplicate", None),
        9: Hop("closed", "duplicate", 404),
        10: Hop("closed", "reopened", None),
        11: Hop("closed", "duplicate", 5),
    }
    assert follow(1, tracker.get) == Original(3, "open", (1, 2, 3))
    assert follow(3, tracker.get) == Original(3, "open", (3,))
    assert follow(4, tracker.get) == Original(4, "completed", (4,))
    assert follow(11, tracker.get) == Original(5, "not_planned", (11, 5))
    assert follow(10, tracker.get) == Original(10, "open", (10,))
    assert follow(6, tracker.get) == Refusal("#6's duplicate chain loops (#6 → #7 → #6)")
    assert isinstance(follow(8, tracker.get), Refusal) and isinstance(
        follow(9, tracker.get), Refusal
    )  # unknown, unreadable
    long = {n: Hop("closed", "duplicate", n + 1) for n in range(100)}
    assert isinstance(follow(0, long.get), Refusal)
