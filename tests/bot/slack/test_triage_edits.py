"""A maintainer's choice on a Slack triage card before deciding (issue 24 item 2): dropping offered labels,
editing the reply in a modal. Signed requests to the real Bolt app, views.open on the Slack stand-in,
a real worker, the GitHub stand-in: what reaches GitHub is what was chosen before Approve."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, actions, button, inbox, text_of
from workers.approvals import records as approvals

OUTSIDER = "U0OTHER"
EDITED = "Thanks! Could you paste the scheduler log\u200b from 2.3? (edited)"


def _labels_now(box, pending: str) -> list[str]:  # noqa: ANN001 - the harness's Inbox
    found = approvals.load(box.conn, pending)
    assert found is not None
    return list(json.loads(found.arguments)["labels"])


def test_dropped_labels_and_an_edited_reply_are_what_approve_runs_and_nothing_changes_after_the_decision(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_ACTIONS="duplicates=off,labels=draft,reply=draft") as box:
        box.slack.add_user(OUTSIDER)
        issue = box.open_issue(
            "Scheduler crashes when a job fails", "The scheduler crashes with an error every time a job fails."
        )
        with box.worker("edits-w1"):
            (card,) = box.cards()
            assert set(actions(card)) == {"labels", "reply"}, text_of(card)
            labels_id, reply_id = button(card, "labels"), button(card, "reply")
            offered = _labels_now(box, labels_id)
            assert len(offered) >= 2, offered
            kept, dropped = offered[:1], offered[1:]
            assert box.pick(card, kept, user=OUTSIDER) == 200  # not an approver: nothing changes
            wait_for(lambda: any(e["user"] == OUTSIDER for e in box.slack.ephemerals()), what="the outsider told")
            assert _labels_now(box, labels_id) == offered
            assert box.pick(card, kept) == 200
            assert _labels_now(box, labels_id) == kept  # recorded before the ack
            shown = wait_for(
                lambda: f"`{dropped[0]}`" not in text_of(c := box.card_now(card)) and c, what="the card re-rendered"
            )
            [box_now] = [
                e
                for b in shown["blocks"]
                if b.get("type") == "actions"
                for e in b["elements"]
                if e["type"] == "checkboxes"
            ]
            assert [o["value"] for o in box_now["initial_options"]] == kept and len(box_now["options"]) == len(offered)

            assert box.edit(card) == 200
            opened = wait_for(lambda: box.slack.calls_to("views.open"), what="views.open")
            assert opened[0].reply["ok"] and opened[0].args["trigger_id"] == "1.2.3"
            view = opened[0].reply["view"]
            reply = json.loads(approvals.load(box.conn, reply_id).arguments)["body"]  # type: ignore[union-attr]
            assert view["blocks"][0]["element"]["initial_value"] == reply
            refused = box.submit_reply(view, "Close this, it is spam.", user=OUTSIDER)
            assert refused.status == 200 and refused.json()["response_action"] == "errors"
            assert json.loads(approvals.load(box.conn, reply_id).arguments)["body"] == reply  # type: ignore[union-attr]
            assert box.submit_reply(view, EDITED).status == 200
            wait_for(
                lambda: "log<U+200B> from 2.3" in text_of(box.card_now(card)),
                what="the edited reply on the card, revealed",
            )

            assert box.click(card, "labels") == 200 and box.click(card, "reply") == 200
            wait_for(lambda: text_of(box.card_now(card)).count("Approved by") == 2, what="both actions done")
            assert box.pick(card, offered) == 200  # after the decision: changes nothing
            assert box.submit_reply(view, "A later edit").json()["response_action"] == "errors"
            wait_for(
                lambda: len([e for e in box.slack.ephemerals() if e["user"] == MAINTAINER]) >= 1,
                what="the late pick answered",
            )
        [labelled] = box.github.requests("POST", r"/labels$")
        assert labelled.body == {"labels": kept}
        [comment] = box.github.requests("POST", r"/comments$")
        assert comment.path == f"/repos/acme/rocket/issues/{issue['number']}/comments"
        assert comment.body["body"].startswith(EDITED) and "approved by maint on Slack" in comment.body["body"]
        assert set(_labels_now(box, labels_id)) == set(kept)
