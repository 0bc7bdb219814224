"""The Edit button's modal against Slack's trigger_id (issue 35): a trigger_id opens a view within 3 seconds
of the click, once; views.open ran after the ack on the shared after-ack pool, which starts work only once
the acks in flight are answered and may be busy, so the id could expire unnoticed. Signed requests to the
real Bolt app, the Slack stand-in refusing a stale trigger_id with `expired_trigger_id` as Slack does."""

from __future__ import annotations

from pathlib import Path

from bot.slack import wording
from bot.slack.deps import BACKGROUND_THREADS
from bot.slack.views.triage import EDIT_ACTION
from tests.standins.slack_interactions import block_action
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import CHANNEL, MAINTAINER, actions, button, inbox, text_of

OUTSIDER = "U0OTHER"


def _edit(box, card, trigger: str) -> int:  # type: ignore[no-untyped-def]  # noqa: ANN001 - the harness's Inbox
    body = block_action(
        EDIT_ACTION, button(card, "reply", EDIT_ACTION), user=MAINTAINER, channel=CHANNEL, message_ts=card["ts"]
    )
    body["message"], body["trigger_id"] = {"ts": card["ts"], "blocks": card["blocks"]}, trigger
    return int(box.send.interaction(body).status)


def test_the_modal_opens_before_the_ack_however_busy_the_pool_and_a_stale_trigger_is_told(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_ACTIONS="duplicates=off,labels=draft,reply=draft") as box:
        box.slack.add_user(OUTSIDER)
        box.open_issue(
            "Scheduler crashes when a job fails", "The scheduler crashes with an error every time a job fails."
        )
        with box.worker("edit-trigger-w1"):
            (card,) = box.cards()
            assert set(actions(card)) == {"labels", "reply"}, text_of(card)
        # Every after-ack thread busy: each outsider's label pick is told so, and Slack holds those answers
        held = [box.slack.hold("chat.postEphemeral") for _ in range(BACKGROUND_THREADS)]
        for _ in range(BACKGROUND_THREADS):
            assert box.pick(card, [], user=OUTSIDER) == 200
        wait_for(lambda: all(h.reached.is_set() for h in held), what="the pool's threads all waiting on Slack")
        try:
            assert _edit(box, card, box.slack.triggers.issue("T35-fresh")) == 200
            opened = box.slack.calls_to("views.open")  # no wait: opened before the click was answered
            assert len(opened) == 1 and opened[0].reply["ok"] and opened[0].args["trigger_id"] == "T35-fresh"
            assert _edit(box, card, box.slack.triggers.issue("T35-stale", age=4.0)) == 200
            stale = box.slack.calls_to("views.open")[1]
            assert stale.reply == {"ok": False, "error": "expired_trigger_id"}
        finally:
            for hold in held:
                hold.release.set()
        told = wait_for(
            lambda: [e for e in box.slack.ephemerals() if e["user"] == MAINTAINER], what="the maintainer told"
        )
        assert wording.EDIT_EXPIRED in told[0]["text"]
