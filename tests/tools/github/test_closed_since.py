"""A reply approved after a maintainer closed the issue is not posted (issue 35 item 11): the approved
`post_comment` is checked again through the tracker, finds the issue closed since the card was opened,
posts nothing and says so on the card and to the model, as a value. A comment proposed on an issue that
was already closed is still posted once approved (closing it is not news to the approver).

The GitHub stand-in behind the real Bolt app and a real worker (tests/bot/github/test_e2e.py `github_stack`)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from tests.bot.github.test_e2e import github_stack
from tests.standins.responses_api import Call, reply_calls, reply_text
from tests.support.approvals_harness import MAINTAINER, outputs_sent
from tests.support.github_writes_harness import open_numbers
from tools.side_effects import CLOSED_SINCE


def _now() -> str:
    """GitHub's `closed_at` for a close made now (the stand-in's own clock is a synthetic one in early 2026)."""
    return datetime.fromtimestamp(time.time(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_reply_approved_after_a_maintainer_closed_the_issue_posts_nothing_and_the_card_says_so(
    tmp_path: Path, redis_url: str
) -> None:
    with github_stack(tmp_path, redis_url) as (s, github, _):
        first = open_numbers(github)[0]
        closed = next(
            n for n, i in sorted(github.repo.issues.items()) if i["state"] == "closed" and "pull_request" not in i
        )
        s.model.script(
            reply_calls(
                [
                    Call("post_comment", {"issue_id": first, "body": "Fixed in 2.1."}, "call_a"),
                    Call("post_comment", {"issue_id": closed, "body": "For the record: fixed in 2.1."}, "call_b"),
                ]
            ),
            reply_text("Done."),
        )
        thread = s.ask(f"tell #{first} and #{closed} it is fixed")
        with s.worker("gh-closed"):
            cards = s.cards(thread, 2)
            run = s.run_of(cards[0])
            github.repo.edit_issue(
                first, state="closed", state_reason="completed", closed_at=_now()
            )  # a maintainer, on GitHub
            for card in cards:
                assert s.click(card, MAINTAINER) == 200
            final = s.wait_final(run.id)
        assert final.status == "done"
        posted = github.requests("POST", r"/comments$")
        assert [p.path.split("/")[-2] for p in posted] == [str(closed)]  # nothing on the issue closed since
        said = CLOSED_SINCE.format(number=first)
        assert said in outputs_sent(s.model)["call_a"]
        shown = [json.dumps(s.card_now(card)["blocks"]) for card in cards]
        assert sum(said in text for text in shown) == 1
        s.model.assert_done()
