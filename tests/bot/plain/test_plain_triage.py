"""The plain-text triage card: what an MCP client is shown of the card its proposal made (bot/plain/views/triage.py).
Built from the value alone; the words are the cards' own (workers/new_issues/wording.py), without markup."""

from __future__ import annotations

from bot.plain import wording
from bot.plain.views.triage import triage_text
from workers.messages.triage import Duplicate, Labels, Reply, TriageCard, TriageItem, Undo, words


def _card(*items: TriageItem, **changes: object) -> TriageCard:
    fields: dict[str, object] = {
        "run_id": "triage-1",
        "issue": 7,
        "title": "Crash on start",
        "author": "zoe",
        "url": "https://github.com/acme/cli/issues/7",
        "drafts": 1,
        "proposed": None,
        "items": items,
        "superseded": None,
        "hidden": 0,
        **changes,
    }
    return TriageCard(**fields)  # type: ignore[arg-type]


LABELS = TriageItem("labels", Labels(("bug", "cli")), "Mode: draft.", "triage-1.triage_labels")


def test_a_card_names_its_issue_and_each_action_waiting_for_a_click() -> None:
    lines = triage_text(_card(LABELS)).splitlines()
    assert lines[0] == "New issue #7 Crash on start (https://github.com/acme/cli/issues/7), opened by zoe"
    assert lines[1:] == ["", "Add labels bug, cli", "Mode: draft.", wording.TRIAGE_WAITING]


def test_a_proposal_just_queued_shows_its_number_and_the_proposers_words_revealed() -> None:
    card = _card(LABELS, title="", author="?", url=None, proposed="Proposed over MCP by agent\u202e: why", hidden=1)
    text = triage_text(card)
    assert text.splitlines()[:2] == ["Issue #7", "Proposed over MCP by agent<U+202E>: why"]
    assert "\u202e" not in text and text.endswith(words.HIDDEN.format(count=1))
    queued = TriageItem("labels", Labels(("bug",)), "Mode: draft.", None)  # no approval yet: the card is not posted
    assert triage_text(_card(queued)).endswith("Mode: draft.\n" + wording.TRIAGE_QUEUED)


def test_a_decided_action_shows_who_decided_instead_of_waiting() -> None:
    done = TriageItem("labels", Labels(("bug",)), "Mode: draft.", None, outcome="Approved by maya: done.")
    text = triage_text(_card(done))
    assert text.endswith("Mode: draft.\nApproved by maya: done.") and wording.TRIAGE_WAITING not in text


def test_a_reply_is_quoted_whole_line_by_line() -> None:
    reply = TriageItem("reply", Reply("Thanks!\n\nFixed in 3.1.2."), "Mode: draft.", "p")
    lines = triage_text(_card(reply)).splitlines()
    assert lines[2:6] == [words.REPLY, "  | Thanks!", "  | ", "  | Fixed in 3.1.2."]


def test_a_duplicate_claim_shows_its_original_evidence_and_candidates() -> None:
    dup = Duplicate(1, "Scheduler crashes", None, "", "Score 0.93. Why: same traceback", (4, 5), "Atlas comments.")
    lines = triage_text(_card(TriageItem("duplicates", dup, "Mode: draft.", "p"))).splitlines()
    assert lines[2:6] == [
        "Close as duplicate of #1 Scheduler crashes",
        "Score 0.93. Why: same traceback",
        "Also similar: #4, #5",
        "Atlas comments.",
    ]


def test_an_undo_and_a_superseded_card() -> None:
    undo = TriageItem("undo", Undo("remove `bug`"), "", "p")
    text = triage_text(_card(undo, superseded="closed by @zoe"))
    assert "Undo what Atlas did: remove `bug`." in text and words.UNDO_WHEN in text
    assert text.endswith(words.SUPERSEDED.format(why="closed by @zoe"))
