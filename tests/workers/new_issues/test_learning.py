"""Maintainers' decisions become outcomes (issue 36 item 4), end to end: a card's Approve with a dropped label,
a label a maintainer removes afterwards, the reopening of an issue Atlas closed as a duplicate; bots teach
nothing; `atlas triage report --json` measures the live precision from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.cli.triage import live_report
from tests.standins.github_webhooks import deliver, payload, sent_by
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, actions, inbox
from workers.triage import outcomes

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def _offered(card: dict[str, object]) -> list[str]:
    box = next(
        e
        for b in card["blocks"]
        if b.get("type") == "actions"  # type: ignore[attr-defined]
        for e in b["elements"]
        if e["type"] == "checkboxes"
    )
    return [o["value"] for o in box["options"]]


def _ticked(card: dict[str, object]) -> list[str]:
    box = next(
        (
            e
            for b in card["blocks"]
            if b.get("type") == "actions"  # type: ignore[attr-defined]
            for e in b["elements"]
            if e["type"] == "checkboxes"
        ),
        {},
    )
    return [o["value"] for o in box.get("initial_options") or []]


def test_card_decisions_later_labels_and_a_reopening_are_outcomes_and_the_report_measures_them(
    tmp_path: Path, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with inbox(tmp_path, redis_url) as box:
        issue = box.open_issue(TITLE, BODY)
        number = issue["number"]
        with box.worker("learning-w1"):
            (card,) = box.cards(timeout=120)
            offered = _offered(card)
            assert len(offered) >= 2, offered  # bug and scheduler at least: one is dropped below
            kept = offered[0]
            assert box.pick(card, [kept]) == 200
            wait_for(lambda: _ticked(box.card_now(card)) == [kept], what="the card to show the choice", timeout=60)
            assert box.click(card, "labels") == 200
            assert box.click(card, "duplicates") == 200
            wait_for(
                lambda: not {"duplicates", "labels"} & set(actions(box.card_now(card))), what="both decided", timeout=90
            )
            wait_for(lambda: box.github.requests("PATCH"), what="the close", timeout=90)
            repo = box.github.repo
            label = repo.labels[kept]
            removed = payload(
                "issues-unlabeled", repo, action="unlabeled", issue=repo.edit_issue(number, labels=[]), label=label
            )
            assert deliver(box.webhook_url, "issues", sent_by(removed, "maya"))[0] == 202
            by_bot = payload(
                "issues-labeled", repo, action="labeled", issue=repo.issues[number], label=repo.labels["docs"]
            )
            assert deliver(box.webhook_url, "issues", sent_by(by_bot, "triage-labeler[bot]", kind="Bot"))[0] == 202
            reopened = payload(
                "issues-reopened",
                repo,
                action="reopened",
                issue=repo.edit_issue(number, state="open", state_reason="reopened"),
            )
            assert deliver(box.webhook_url, "issues", sent_by(reopened, "zoe"))[0] == 202
            found = wait_for(
                lambda: (o := outcomes.load(box.conn, "acme/rocket")) and any(x.source == "reopened" for x in o) and o,
                what="the reopening's outcome",
                timeout=90,
            )
        seen = {(o.kind, o.value, o.accepted, o.source) for o in found}
        assert ("duplicate", "1", True, "card") in seen and ("duplicate", "1", False, "reopened") in seen
        assert ("label", kept, True, "card") in seen and ("label", kept, False, "maintainer") in seen
        assert {("label", name, False, "card") for name in offered[1:]} <= seen  # dropped before approving
        assert not any(o.value == "docs" for o in found)  # the bot's label taught nothing
        assert all(o.issue == number for o in found) and len(found) == len(seen)  # each once
        capsys.readouterr()
        assert live_report(box.settings, 30, as_json=True) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["duplicates"]["live"] == {"claims": 1, "right": 0, "precision": 0.0, "reopened": 1, "undone": 0}
        assert report["labels"]["live"]["claims"] == len(offered) and report["labels"]["live"]["right"] == 0
