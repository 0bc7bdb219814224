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


def test_related_issues_below_the_claim_threshold_are_links_with_evidence_and_no_action() -> None:
    from workers.messages.triage import triage_card_of
    from workers.runs.state import RunState
    from workers.runs.triage_record import TriageAction, TriageRecord

    related = [
        {"id": 3, "score": 0.7, "evidence": "same error", "url": "https://t.example/3"},  # the claim's original
        {"id": 5, "score": 0.41, "evidence": "same frame\u200b", "url": "https://t.example/5"},
        {"id": 8, "score": 0.33, "evidence": "words", "url": None},
    ]
    close = TriageAction(
        kind="duplicates", mode="draft", tool="close_issue", arguments={"issue_id": 7, "duplicate_of": 3}, call_id="d",
        step=1,
    )  # fmt: skip
    record = TriageRecord(repo="acme/cli", issue=7, title="Crash", suggestions={"related": related}, actions=[close])
    card = triage_card_of(RunState(question="triage", triage=record), None)
    assert card is not None and [r.issue for r in card.related] == [5, 8]  # never the one the card closes into
    assert card.hidden == 1  # the evidence's invisible character is counted like the rest of the card's text
    line = next(ln for ln in triage_text(card).splitlines() if ln.startswith("Related"))
    assert line == words.RELATED.format(links="#5 (https://t.example/5) (0.41: same frame<U+200B>); #8 (0.33: words)")
    alone = triage_text(_card(LABELS, related=card.related))
    assert alone.count(wording.TRIAGE_WAITING) == 1  # one action waits; the related issues have none
