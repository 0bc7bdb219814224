"""A write GitHub may have applied but did not confirm (a 5xx, or an answer after the client's timeout)
is in doubt: it is settled from GitHub (the comment's hidden marker, the state, the labels) before
anything is said, as after a worker crash; it is never reported as "did not go through", never
retried, and the hint written for the model never reaches a card. An issue transferred while its card
waited is refused, and the card says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas import github_client
from tests.bot.github.test_e2e import github_stack
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.standins.responses_api import Call, reply_calls, reply_text
from tests.support.approvals_harness import MAINTAINER, outputs_sent
from tests.support.github_writes_harness import call_tool, open_numbers, tracker_for
from tools.errors import TrackerInDoubt
from tools.github.tracker import marker
from workers.approvals import audit, ledger


def test_a_write_answered_after_the_timeout_is_in_doubt_and_settled_from_github(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(github_client, "TIMEOUT_SECONDS", 1.0)
    with GitHubAPI(generate(20, comments=10)) as api:
        tracker, settings = tracker_for(api, tmp_path)
        number = open_numbers(api)[0]
        api.apply_then_fail(r"PATCH /repos/acme/rocket/issues/\d+$", 0, delay=3.0)  # closed, answered after the timeout
        with pytest.raises(TrackerInDoubt):
            tracker.close_issue(number, "completed", None, key="r1.c1")
        assert api.repo.issues[number]["state"] == "closed"
        found = tracker.settle(
            "close_issue", {"issue_id": number, "reason": "completed", "duplicate_of": None}, "r1.c1"
        )
        assert found is not None and found.startswith(f"Closed #{number}")
        api.apply_then_fail(r"POST /repos/acme/rocket/issues/\d+/comments$", 502)
        output = call_tool(
            tracker, settings, "post_comment", {"issue_id": open_numbers(api)[0], "body": "Thanks"}, "c2"
        )
        assert not output.ok and output.in_doubt
        assert "did not happen" not in output.text
        assert api.violations == []


def test_a_write_github_applied_but_answered_502_is_done_one_it_did_not_apply_is_in_doubt_and_no_card_shows_a_hint(
    tmp_path: Path, redis_url: str
) -> None:
    with github_stack(tmp_path, redis_url) as (s, github, _):
        first, second, third, fourth = open_numbers(github)[:4]
        github.apply_then_fail(rf"POST /repos/acme/rocket/issues/{first}/comments$", 502)  # applied, then 502
        github.fail_next(rf"POST /repos/acme/rocket/issues/{second}/comments\?", 502)  # not applied
        github.fail_next(rf"PATCH /repos/acme/rocket/issues/{third}\?", 422)  # refused: certainly not applied
        s.model.script(
            reply_calls(
                [
                    Call("post_comment", {"issue_id": first, "body": "Fixed in 2.1."}, "call_a"),
                    Call("post_comment", {"issue_id": second, "body": "Fixed in 2.2."}, "call_b"),
                    Call("close_issue", {"issue_id": third, "reason": "completed", "duplicate_of": None}, "call_c"),
                    Call("add_labels", {"issue_id": fourth, "labels": ["bug"]}, "call_d"),
                ]
            ),
            reply_text("Done."),
        )
        thread = s.ask(f"tell #{first} and #{second} it is fixed, close #{third}, label #{fourth}")
        with s.worker("gh-doubt"):
            cards = s.cards(thread, 4)
            run = s.run_of(cards[0])
            github.transfer(fourth, "acme/launchpad")  # while its card waits
            for card in cards:
                assert s.click(card, MAINTAINER) == 200
            final = s.wait_final(run.id)
        assert final.status == "done"
        posted = [c for c in github.repo.comments.values() if marker(f"{run.id}.call_a") in c["body"]]
        assert len(posted) == 1  # applied once, found by its marker, never posted again
        assert not [c for c in github.repo.comments.values() if marker(f"{run.id}.call_b") in c["body"]]
        sent = outputs_sent(s.model)
        assert sent["call_a"].startswith(f"Posted the comment on #{first}")
        assert "may or may not have happened" in sent["call_b"] and "did not happen" not in sent["call_b"]
        assert "Hint:" in sent["call_c"]  # the model still reads its hint
        assert ledger.entry_of(s.conn, run.id, "call_a")["state"] == "done"
        assert ledger.entry_of(s.conn, run.id, "call_b")["state"] == "in_doubt"
        shown = {card["ts"]: json.dumps(s.card_now(card)["blocks"]) for card in cards}
        assert all("Hint" not in text for text in shown.values())
        assert sorted("Done: Posted the comment" in t for t in shown.values()) == [False, False, False, True]
        assert sorted("may or may not have happened" in t for t in shown.values()) == [False, False, False, True]
        assert sorted("did not go through" in t for t in shown.values()) == [
            False,
            False,
            True,
            True,
        ]  # the refused ones
        assert any(f"issue #{fourth} was transferred to acme/launchpad; nothing was done" in t for t in shown.values())
        assert "/launchpad/" not in " ".join(c.path for c in github.calls if c.method != "GET")
        decisions = sorted(str(e.get("decision")) for e in audit.entries(s.conn) if e.kind == "result")
        assert decisions == ["done", "failed", "failed", "in_doubt"]
        assert len(github.requests("POST", r"/comments$")) == 2  # one attempt each, nothing retried
        s.model.assert_done()
