"""Slack's views, one by one: each a pure function from a message value (workers/messages/) to Block Kit or text,
checked without a network, a Redis or a run. The answer's view is tests/bot/slack/test_render.py's, the approval
card's tests/bot/slack/test_approval_cards.py's."""

from __future__ import annotations

import json

from bot.slack import wording
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION, decided
from bot.slack.views.ephemeral import ephemeral_text
from bot.slack.views.filing import filing_click_text
from bot.slack.views.greeting import greeting_text, suggested_prompts
from bot.slack.views.help import held_text
from bot.slack.views.intake_notes import intake_note_text
from bot.slack.views.knowledge import solved_click_text
from bot.slack.views.lookup import MAX_SECTIONS, SECTION_CHARS, SHARE_ACTION, chunks, lookup_message
from bot.slack.views.notices import notice_text
from bot.slack.views.progress import closing_line, placeholder_text, task_chunks
from bot.slack.views.triage import EDIT_ACTION, PICK_PREFIX, fallback_text, triage_blocks
from workers.messages import wording as said
from workers.messages.approval import Decision
from workers.messages.ephemeral import (
    AlreadyDecided,
    EditorFailed,
    Elsewhere,
    EmptyReply,
    Gone,
    NoLabelLeft,
    NotAllowed,
    QuestionCut,
    Unrecorded,
    VoteSaved,
)
from workers.messages.filing import FilingClick
from workers.messages.greeting import Greeting
from workers.messages.help import held
from workers.messages.intake_notes import EmptyQuestion, KeptForLater, Unavailable
from workers.messages.knowledge import SolvedClick
from workers.messages.lookup import Found, Help, Lookup, LookupFailed, Result, Usage
from workers.messages.notices import HandOff, InDoubtNotice, Stopped, ThreadNote, Undelivered
from workers.messages.progress import Progress, ProgressEnd, Task
from workers.messages.triage import Duplicate, Labels, Related, Reply, TriageCard, TriageItem, Undo


def test_the_placeholder_lists_each_task_with_its_mark_and_closes() -> None:
    tasks = (Task("c1", "Searching issues: <b>", "complete"), Task("c2", "Reading #4", "in_progress"))
    text = placeholder_text(Progress(2, tasks, ProgressEnd("done", 2)))
    assert text.split("\n") == [
        wording.PROGRESS_STEP.format(step=2),
        f"{wording.TASK_MARK['complete']} Searching issues: &lt;b&gt;",
        f"{wording.TASK_MARK['in_progress']} Reading #4",
        wording.PROGRESS_DONE.format(steps=2, step_word="steps"),
    ]
    assert placeholder_text(Progress(0)) == wording.PROGRESS_START


def test_every_closing_has_its_own_line() -> None:
    lines = {
        kind: closing_line(ProgressEnd(kind, 1)) for kind in ("done", "failed", "paused", "stopped", "undelivered")
    }
    assert lines["done"] == wording.PROGRESS_DONE.format(steps=1, step_word="step")
    assert lines["failed"] == wording.PROGRESS_FAILED and lines["paused"] == wording.PROGRESS_PAUSED
    assert lines["undelivered"] == wording.PROGRESS_ANSWER_UNDELIVERED and len(set(lines.values())) == 5


def test_tasks_become_the_streams_task_cards() -> None:
    [chunk] = task_chunks([Task("call_a", "Searching the docs: retries", "error")])
    assert chunk.to_dict() == {
        "type": "task_update",
        "id": "call_a",
        "title": "Searching the docs: retries",
        "status": "error",
    }


def _card(**changes: object) -> TriageCard:
    items = (
        TriageItem(
            "duplicates",
            Duplicate(3, "Crash <on> start", "https://t.example/3", "", "Score 0.91. Why: same trace", (5, 8), "line"),
            "Mode: draft.",
            "r1.d",
        ),
        TriageItem("labels", Labels(("bug",)), "Mode: draft.", "r1.l", offered=("bug", "docs"), chosen=("bug",)),
        TriageItem("reply", Reply("Thanks <@U1>!"), "Mode: draft.", None, outcome="Approved by U9: done."),
        TriageItem("undo", Undo("remove `bug`"), "", "r1.u"),
    )
    fields: dict[str, object] = {
        "run_id": "r1",
        "issue": 12,
        "title": "Scheduler\u200b stops",
        "author": "ann",
        "url": "https://t.example/12",
        "drafts": 2,
        "proposed": None,
        "items": items,
        "superseded": None,
        "hidden": 1,
    }
    fields.update(changes)
    return TriageCard(**fields)  # type: ignore[arg-type]


def test_the_triage_card_shows_each_action_with_its_controls_or_its_outcome() -> None:
    blocks = triage_blocks(_card())
    shown = json.dumps(blocks, ensure_ascii=False)
    assert blocks[0]["text"]["text"].startswith("*New issue <https://t.example/12|#12 Scheduler&lt;U+200B&gt; stops>")
    assert "<https://t.example/3|#3 Crash &lt;on&gt; start>" in shown and "Also similar: #5, #8" in shown
    actions = [b for b in blocks if b["type"] == "actions"]
    ids = [[e.get("action_id") for e in b["elements"]] for b in actions]
    assert ids == [[APPROVE_ACTION, DENY_ACTION], [PICK_PREFIX + "r1.l", APPROVE_ACTION, DENY_ACTION], [APPROVE_ACTION]]
    assert [o["value"] for o in actions[1]["elements"][0]["initial_options"]] == ["bug"]
    assert "Thanks <@U1>!" in shown and "Approved by U9: done." in shown  # the reply preformatted: no ping
    assert "This card shows 1 invisible or direction-changing character(s)" in shown
    assert fallback_text(_card()) == "Triage of issue #12: 2 suggestion(s) to decide"


def test_an_editable_reply_gets_its_edit_button_and_the_thresholds_line_shows_when_present() -> None:
    reply = TriageItem("reply", Reply("Hello"), "Mode: draft.", "r1.r", editable=True)
    without = json.dumps(triage_blocks(_card(items=(reply,))))
    assert EDIT_ACTION in without and "Thresholds" not in without
    shown = json.dumps(triage_blocks(_card(items=(reply,), thresholds="Thresholds: labels 0.80 <x>")))
    assert "Thresholds: labels 0.80 &lt;x&gt;" in shown


def test_a_decided_card_keeps_what_it_showed_without_its_buttons() -> None:
    shown = [{"type": "section", "text": {"type": "mrkdwn", "text": "*card*"}}, {"type": "actions", "elements": []}]
    text, blocks = decided(shown, Decision("approved", "U1", 1_800_000_000.0, result="labelled <#4>", ok=True))
    assert [b["type"] for b in blocks] == ["section", "context"]
    last = blocks[-1]["elements"][0]["text"]
    assert last.startswith(":white_check_mark: Approved by <@U1> <!date^1800000000^") and "labelled &lt;#4&gt;" in last
    _, doubt = decided(shown, Decision("approved", "U1", 1.0, in_doubt=True))
    assert wording.APPROVAL_RESULT_IN_DOUBT in doubt[-1]["elements"][0]["text"] and text


def test_each_notice_is_said_once_and_pings_nobody() -> None:
    assert notice_text(Stopped()) == wording.PROGRESS_STOPPED
    handoff = notice_text(HandOff("<!subteam^S1>", "the docs on <!channel>"))
    assert handoff.startswith("<!subteam^S1> I couldn't answer") and "<!channel>" not in handoff
    assert notice_text(ThreadNote("Closed <!channel> #12")) == "Closed &lt;\u200b!channel&gt; #12"
    doubt = notice_text(InDoubtNotice("close_issue", "6", "U2", "https://t.example/6"))
    assert "<@U2>" in doubt and "(<https://t.example/6|#6>)" in doubt
    lost = notice_text(Undelivered("cards", 1, "r9", count=2))
    assert lost == wording.CARDS_UNDELIVERED.format(minutes=1, minute_word="minute", run_id="r9", count=2)
    card = notice_text(Undelivered("triage_card", 15, "r9", issue=7))
    assert "issue #7" in card and "15 minutes" in card


def test_a_lookup_reply_links_issue_numbers_and_offers_a_share_button_until_shared() -> None:
    result = Result(Lookup("issue", "3"), "#3 Crash <on> start, like #5\nHint: none", True)
    message = lookup_message(Found(result, "/orbit", shareable=True, issues_base_url="https://t.example/i"))
    assert message["text"] == "Issue #3"
    title, body, actions = message["blocks"]
    assert title["text"]["text"] == "*Issue #3 (<https://t.example/i/3|#3>)*"
    assert body["text"]["text"].startswith(
        "<https://t.example/i/3|#3> Crash &lt;on&gt; start, like <https://t.example/i/5|#5>"
    )
    assert [e["value"] for e in actions["elements"]] == ["issue 3"] and actions["elements"][0][
        "action_id"
    ] == SHARE_ACTION
    shared = lookup_message(Found(result, "/orbit", shared_by="U1"))["blocks"]
    assert [b["type"] for b in shared] == ["section", "section", "context"]
    assert shared[-1]["elements"][0]["text"] == wording.SHARED_BY.format(user="U1", cmd="/orbit", text="issue 3")
    failed = lookup_message(
        Found(Result(Lookup("search", "<x>", "closed"), "Nothing.\nHint: widen", False), "/orbit", shareable=True)
    )
    assert [b["text"]["text"] for b in failed["blocks"]] == ["*Issues matching “&lt;x&gt;” (closed)*", "Nothing."]


def test_a_long_lookup_is_cut_into_sections_slack_takes() -> None:
    text = "\n".join(f"line {n} " + "x" * 500 for n in range(200)) + "\n" + "y" * 7000
    blocks = lookup_message(Found(Result(Lookup("docs", "x"), text, True), "/orbit"))["blocks"]
    assert len(blocks) == 1 + MAX_SECTIONS and all(len(b["text"]["text"]) <= SECTION_CHARS for b in blocks)
    assert blocks[1]["text"]["text"].startswith("line 0 ") and blocks[1]["text"]["text"].count("\n") == 4
    assert chunks("z" * 7000, 3000) == ["z" * 3000, "z" * 3000, "z" * 1000] and chunks("", 10) == [" "]


def test_the_usage_follows_what_was_wrong_and_a_failure_is_one_short_note() -> None:
    assert lookup_message(Help("/orbit"))["text"] == wording.USAGE.format(cmd="/orbit")
    [block] = lookup_message(Help("/orbit", Usage("UNKNOWN_SUBCOMMAND", "<!here>")))["blocks"]
    assert block["text"]["text"] == "I don't know `&lt;!here&gt;`.\n\n" + wording.USAGE.format(cmd="/orbit")
    [block] = lookup_message(Help("/orbit", Usage("DOCS_NEEDS_WORDS")))["blocks"]
    assert block["text"]["text"].startswith("`docs` needs some words to look for, e.g. `/orbit docs lease_seconds`.")
    assert lookup_message(LookupFailed()) == {"text": wording.LOOKUP_FAILED}


def test_each_ephemeral_note_is_its_own_sentence() -> None:
    assert ephemeral_text(Unrecorded()) == wording.EPHEMERAL_UNAVAILABLE
    assert ephemeral_text(Unrecorded(maybe=True)) == wording.APPROVAL_UNCONFIRMED
    decided = ephemeral_text(AlreadyDecided(Decision("denied", "U7", 1_800_000_000.0)))
    assert decided.startswith(wording.APPROVAL_ALREADY.format(outcome=":no_entry_sign: Denied by <@U7> <!date^"))
    pending = ephemeral_text(AlreadyDecided(Decision("pending", None, 1.0)))
    assert pending == wording.APPROVAL_ALREADY.format(outcome=wording.APPROVAL_OUTCOME["expired"].format(when="now"))
    assert ephemeral_text(VoteSaved(None)) == wording.FEEDBACK_SAVED[None]
    assert ephemeral_text(VoteSaved("down")) == wording.FEEDBACK_SAVED["down"]
    assert ephemeral_text(EditorFailed(expired=True)) == wording.EDIT_EXPIRED
    assert ephemeral_text(EmptyReply(3000)) == "The reply can't be empty or longer than 3000 characters."
    assert "4,000 characters" in ephemeral_text(QuestionCut(4000))
    notes = (Unrecorded(), NotAllowed(), Gone(), Elsewhere(), NoLabelLeft(), EditorFailed(), EmptyReply(1))
    assert len({ephemeral_text(n) for n in notes}) == len(notes)


def test_the_greeting_offers_the_prompts_as_written_and_none_without_them() -> None:
    greeting = Greeting(("Why does <x> fail?", "Find duplicates of #143"))
    assert greeting_text(greeting) == wording.ASSISTANT_GREETING
    assert suggested_prompts(greeting) == {
        "prompts": [
            {"title": "Why does <x> fail?", "message": "Why does <x> fail?"},
            {"title": "Find duplicates of #143", "message": "Find duplicates of #143"},
        ],
        "title": wording.ASSISTANT_PROMPTS_TITLE,
    }
    assert suggested_prompts(Greeting()) is None
    assert greeting_text(Greeting()) == wording.ASSISTANT_GREETING_NO_PROMPTS != wording.ASSISTANT_GREETING


def test_each_intake_note_has_its_own_words() -> None:
    notes = [intake_note_text(n) for n in (EmptyQuestion(), Unavailable(), KeptForLater())]
    assert notes == [wording.EMPTY_QUESTION, wording.UNAVAILABLE, wording.KEPT_FOR_LATER]
    assert "`@atlas " in notes[0] and len(set(notes)) == 3


def test_the_held_note_names_the_limit_that_held_the_message() -> None:
    person = held("held_person", person_per_hour=2, channel_per_hour=30)
    channel = held("held_channel", person_per_hour=2, channel_per_hour=30)
    assert person is not None and channel is not None and held("limited", person_per_hour=2, channel_per_hour=3) is None
    assert held_text(person).startswith("You have asked 2 questions here") and "30" not in held_text(person)
    assert held_text(channel).startswith("This channel had its 30 answers") and " 2 " not in held_text(channel)


def test_each_click_outcome_tells_the_clicker_its_own_sentence() -> None:
    filing = {o: filing_click_text(FilingClick(o)) for o in ("drafting", "already", "nothing", "unavailable")}
    assert filing["drafting"] == said.FILE_ISSUE_DRAFTING and filing["unavailable"] == wording.EPHEMERAL_UNAVAILABLE
    assert len(set(filing.values())) == 4
    solved = {o: solved_click_text(SolvedClick(o)) for o in ("started", "already", "private", "nothing", "unavailable")}
    assert solved["private"] == said.SOLVED_PRIVATE and solved["unavailable"] == wording.EPHEMERAL_UNAVAILABLE
    assert len(set(solved.values())) == 5


def test_a_filing_click_about_none_of_several_repositories_names_them_and_files_nowhere() -> None:
    text = filing_click_text(FilingClick("which_repo", ("acme/lib", "acme/cli")))
    assert "(acme/lib, acme/cli)" in text and "{repos}" not in text


def test_related_issues_are_links_with_their_evidence_and_no_button() -> None:
    related = (Related(5, "https://t.example/5", 0.41, "same <frame>"), Related(8, None, 0.3, "words"))
    blocks = triage_blocks(_card(related=related))
    shown = json.dumps(blocks, ensure_ascii=False)
    assert "Related, no action: <https://t.example/5|#5> (0.41: same &lt;frame&gt;); #8 (0.30: words)" in shown
    plain = [b for b in blocks if b["type"] == "actions"]
    assert len(plain) == len([b for b in triage_blocks(_card()) if b["type"] == "actions"])  # no control of their own
