"""What Atlas says about a triage action goes under its card (issue 35 item D), not at the channel's top level
where it reads as a card of its own."""

from __future__ import annotations

from pathlib import Path

from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import CHANNEL, TRACEBACK, inbox

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def test_an_in_doubt_triage_write_is_told_in_the_card_s_thread(tmp_path: Path, redis_url: str) -> None:
    with inbox(tmp_path, redis_url) as box:
        box.open_issue(TITLE, BODY)
        with box.worker("notices"):
            (card,) = box.cards()
            box.github.fail_next(r"POST /repos/acme/rocket/issues/\d+/labels", 502)  # sent; the answer says nothing
            assert box.click(card, "labels") == 200
            notice = wait_for(
                lambda: next(
                    (
                        m
                        for (c, _), m in box.slack.messages.items()
                        if c == CHANNEL and "add_labels" in m.get("text", "")
                    ),
                    None,
                ),
                timeout=60,
                what="the in-doubt notice",
            )
        assert notice.get("thread_ts") == card["ts"]  # under the card
        assert len(box.messages()) == 1  # the channel's top level holds the card only
