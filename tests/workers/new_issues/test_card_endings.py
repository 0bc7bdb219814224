"""Which GitHub events end a triage card (issue 35 item 10), through the webhook, a real worker and the stand-ins:
a bot's label does not, a maintainer whose membership is private (CONTRIBUTOR) does, someone without write access
does not, a transferred or deleted issue does; an issue Atlas filed itself gets no card."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.standins.github_webhooks import commented, deliver, payload, sent_by
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, Inbox, actions, button, inbox, text_of
from workers.new_issues import claim

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def _issue_of(box: Inbox, card: dict[str, Any]) -> int:
    """The issue a card is about, from its run (its text names similar issues too)."""
    run = box.run(next(button(card, kind) for kind in actions(card)).split(".")[0])
    assert run.triage is not None
    return run.triage.issue


def test_bots_and_outsiders_leave_cards_private_members_transfers_and_deletions_end_them_and_atlas_files_get_none(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url) as box:
        box.github.roles = {"pam": "maintain", "rita": "read"}  # pam: a maintainer whose org membership is private
        labelled, answered, moved, gone = (box.open_issue(TITLE, BODY) for _ in range(4))
        filed = box.open_issue("Scheduler drops retries", "Filed from a thread.\n\n<!-- atlas:file-abc.call-1 -->\n")
        by_pam = box.open_issue(
            "Scheduler: document retry_policy", "Tracking the docs change.", author="pam", association="CONTRIBUTOR"
        )
        with box.worker("endings-w1"):
            cards = {_issue_of(box, c): c for c in box.cards(4, timeout=120)}
            assert set(cards) >= {labelled["number"], answered["number"], moved["number"], gone["number"]}
            repo = box.github.repo
            bug = repo.labels["bug"]
            body = payload(
                "issues-labeled",
                repo,
                action="labeled",
                issue=repo.edit_issue(labelled["number"], labels=[bug]),
                label=bug,
            )
            assert deliver(box.webhook_url, "issues", sent_by(body, "github-actions[bot]", kind="Bot"))[0] == 202
            outsider = repo.add_comment(answered["number"], "Same here on 2.3!", author="rita")
            body = payload(
                "issue-comment-created", repo, action="created", issue=repo.issues[answered["number"]], comment=outsider
            )
            assert deliver(box.webhook_url, "issue_comment", commented(body, "rita", "CONTRIBUTOR"))[0] == 202
            reply = repo.add_comment(answered["number"], "Fixed on main, see the changelog.", author="pam")
            body = payload(
                "issue-comment-created", repo, action="created", issue=repo.issues[answered["number"]], comment=reply
            )
            assert deliver(box.webhook_url, "issue_comment", commented(body, "pam", "CONTRIBUTOR"))[0] == 202
            ended = wait_for(
                lambda: "answered by pam" in text_of(m := box.card_now(cards[answered["number"]])) and m,
                what="the private member's answer to end the card",
                timeout=90,
            )
            assert actions(ended) == []
            for issue, action in ((moved, "transferred"), (gone, "deleted")):
                body = payload(f"issues-{action}", repo, action=action, issue=repo.issues[issue["number"]])
                assert deliver(box.webhook_url, "issues", sent_by(body, "maya"))[0] == 202
                wait_for(
                    lambda i=issue, a=action: f"{a} by maya" in text_of(box.card_now(cards[i["number"]])),  # type: ignore[misc]  # noqa: E501
                    what=f"the {action} issue's card to end",
                    timeout=90,
                )
                assert actions(box.card_now(cards[issue["number"]])) == []
            still = box.card_now(cards[labelled["number"]])
            assert "duplicates" in actions(still) and "labelled by" not in text_of(
                still
            )  # the bot's label ended nothing
        assert claim.run_of(box.conn, "acme/rocket", filed["number"]) is None  # Atlas's own issue: no run, no card
        assert not any(f"#{filed['number']} " in text_of(m) for m in box.messages())
        assert claim.run_of(box.conn, "acme/rocket", by_pam["number"]) is None  # opened by a private member: skipped
        asked = box.github.requests("GET", r"/collaborators/[^/]+/permission$")
        who = [c.path.split("/")[-2] for c in asked]
        assert set(who) == {"pam", "rita", "zoe"} and who.count("pam") == 1  # then kept: pam's comment asked nothing
