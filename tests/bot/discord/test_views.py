"""Each Discord view is a pure function from a message value (workers/messages/) to what Discord shows: a unit test
per view, with no network, no Redis and no run (the answer and approval card have theirs in test_render.py)."""

from __future__ import annotations

from bot.discord import wording
from bot.discord.views.card import decided_payload, outcome_text
from bot.discord.views.components import APPROVE_PREFIX, DENY_PREFIX, FEEDBACK_PREFIX, FILE_ISSUE_PREFIX, SHARE_PREFIX
from bot.discord.views.ephemeral import click_note_text
from bot.discord.views.filing import filing_click_text
from bot.discord.views.help import held_content
from bot.discord.views.intake_notes import intake_note_text
from bot.discord.views.knowledge import solved_click_text
from bot.discord.views.lookup import lookup_payload
from bot.discord.views.notices import handoff_text, in_doubt_text, note_text
from bot.discord.views.progress import progress_text
from bot.discord.views.triage import triage_payload
from bot.discord.views.triage_controls import EDIT_PREFIX, PICK_PREFIX
from workers.messages import wording as said
from workers.messages.answer import Answer
from workers.messages.approval import Decision
from workers.messages.ephemeral import AlreadyDecided, Elsewhere, EmptyReply, Gone, NoLabelLeft, NotAllowed, Unrecorded
from workers.messages.filing import FilingClick
from workers.messages.help import Held
from workers.messages.intake_notes import EmptyQuestion, Unavailable, UnknownCommand
from workers.messages.knowledge import SolvedClick
from workers.messages.lookup import Found, Help, Lookup, LookupFailed, Result, Usage
from workers.messages.notices import HandOff, InDoubtNotice, ThreadNote
from workers.messages.progress import Progress, ProgressEnd, Task
from workers.messages.triage import Duplicate, Labels, Outcome, Related, Reply, TriageCard, TriageItem, Undo, words


def _ids(payload: dict[str, object]) -> list[str]:
    rows = payload.get("components") or []
    return [str(c["custom_id"]) for row in rows for c in row["components"]]  # type: ignore[attr-defined,index]


def test_progress_lists_its_tasks_escaped_and_closes_as_it_ended() -> None:
    tasks = (Task("c1", "Searching the issues: *boom*", "complete"), Task("c2", "Reading #12", "in_progress"))
    text = progress_text(Progress(2, tasks))
    assert text.splitlines() == [
        wording.PROGRESS_STEP.format(step=2),
        "\u2705 Searching the issues\\: \\*boom\\*",
        "\u23f3 Reading \\#12",
    ]
    assert progress_text(Progress(0)) == wording.PROGRESS_START
    done = progress_text(Progress(2, tasks, ProgressEnd("done", 1))).splitlines()[-1]
    assert done == wording.PROGRESS_DONE.format(steps=1, step_word="step")
    assert progress_text(Progress(2, (), ProgressEnd("paused"))).endswith(wording.PROGRESS_PAUSED)
    assert progress_text(Progress(2, (), ProgressEnd("failed"))).endswith(wording.PROGRESS_FAILED)


def test_an_answers_buttons_follow_its_value() -> None:
    from bot.discord.views.answer import answer_messages

    value = Answer("r1", "Yes.", False, False, "done", (), 1, 10, 0.0, fileable=True, votes=True)
    [message] = answer_messages(value)
    assert _ids(message) == [
        f"{FEEDBACK_PREFIX}r1:up",
        f"{FEEDBACK_PREFIX}r1:down",
        f"{FILE_ISSUE_PREFIX}r1",
        "atlas_mark_answer:r1",
    ]
    [plain] = answer_messages(Answer("r1", "Yes.", False, False, "done", (), 1, 10, 0.0, fileable=False, votes=True))
    assert _ids(plain) == [f"{FEEDBACK_PREFIX}r1:up", f"{FEEDBACK_PREFIX}r1:down"]


def test_a_decided_card_keeps_what_it_showed_and_says_who_decided_and_the_result() -> None:
    decision = Decision("approved", "1500000000000000001", 1.7e9, result="Added `bug` to #3", ok=True)
    payload = decided_payload("the card", decision)
    assert payload["components"] == []
    lines = str(payload["content"]).splitlines()
    assert lines[0] == "the card"
    assert lines[1] == wording.APPROVAL_OUTCOME["approved"].format(user="1500000000000000001", when=1700000000)
    assert lines[2] == wording.APPROVAL_RESULT_DONE.format(result="Added \\`bug\\` to \\#3")
    doubt = decided_payload("the card", Decision("approved", "u", 1.7e9, in_doubt=True))
    assert str(doubt["content"]).endswith(wording.APPROVAL_RESULT_IN_DOUBT) and "<@u>" not in str(doubt["content"])
    assert outcome_text(Decision("pending", None, 0.0)) == ""


def test_notices_escape_what_came_from_outside() -> None:
    assert handoff_text(HandOff("<@&42>", "docs *and* issues")).startswith("<@&42> ")
    assert "docs \\*and\\* issues" in handoff_text(HandOff("<@&42>", "docs *and* issues"))
    text = in_doubt_text(InDoubtNotice("add_`labels`", "3_x", "1500000000000000001", "https://gh.example/3"))
    assert "`add_labels`" in text and "#3\\_x" in text and "<@1500000000000000001>" in text
    assert "<@?>" in in_doubt_text(InDoubtNotice("close_issue", "3", "not-an-id"))
    assert len(note_text(ThreadNote("x" * 5000))) <= 2000


def _card(*items: TriageItem, **changes: object) -> TriageCard:
    fields: dict[str, object] = {
        "run_id": "t1",
        "issue": 10,
        "title": "Cron *runs* twice",
        "author": "octo_cat",
        "url": "https://gh.example/10",
        "drafts": len(items),
        "proposed": None,
        "items": items,
        "superseded": None,
        "hidden": 0,
        **changes,
    }
    return TriageCard(**fields)  # type: ignore[arg-type]


def test_a_triage_card_renders_each_action_with_its_buttons_and_controls() -> None:
    labels = TriageItem("labels", Labels(("bug", "cron")), "Draft", "p1", offered=("bug", "cron"), chosen=("bug",))
    reply = TriageItem("reply", Reply("Thanks! See #3."), "Draft", "p2", editable=True)
    duplicate = TriageItem("duplicates", Duplicate(3, "Cron", None, "", "Score 0.93. Why: same", (), "line"), "", "p3")
    payload = triage_payload(_card(labels, reply, duplicate))
    content = str(payload["content"])
    assert content.startswith(
        "**"
        + words.CARD_TITLE.format(link="[\\#10 Cron \\*runs\\* twice](<https://gh.example/10>)", author="`octo\\_cat`")
    )
    assert "`bug`" in content and "Score 0.93. Why\\: same" in content
    assert _ids(payload) == [
        PICK_PREFIX + "p1",
        APPROVE_PREFIX + "p1",
        DENY_PREFIX + "p1",
        APPROVE_PREFIX + "p2",
        DENY_PREFIX + "p2",
        EDIT_PREFIX + "p2",
        APPROVE_PREFIX + "p3",
        DENY_PREFIX + "p3",
    ]
    [select] = payload["components"][0]["components"]  # type: ignore[index]
    assert [o["default"] for o in select["options"]] == [True, False]
    [embed] = payload["embeds"]  # type: ignore[misc]
    assert embed["title"] == words.REPLY and "Thanks! See #3." in embed["description"]
    assert payload["allowed_mentions"] == {"parse": []}


def test_a_decided_triage_action_shows_who_decided_with_only_the_untrusted_parts_escaped() -> None:
    said = words.OUTCOME["done"]
    done = TriageItem(
        "labels",
        Labels(("bug",)),
        "",
        None,
        outcome=said.format(who="mai_ntainer", result=""),
        outcome_parts=Outcome(said, "mai_ntainer", ""),
    )
    undo = TriageItem("undo", Undo("remove `bug`"), "", "p9")
    payload = triage_payload(_card(done, undo, superseded="closed *by hand*", hidden=2))
    content = str(payload["content"])
    assert "> " + said.format(who="mai\\_ntainer", result="") in content
    assert words.UNDO_OFFER.format(what="remove \\`bug\\`") in content and _ids(payload) == [APPROVE_PREFIX + "p9"]
    assert words.SUPERSEDED.format(why="closed \\*by hand\\*") in content
    assert words.HIDDEN.format(count=2) in content


def test_a_lookup_reply_is_its_title_and_text_escaped_with_a_share_button_or_who_shared_it() -> None:
    found = Result(Lookup("search", "*x*", "open"), "#3 Cron `runs` twice", True)
    payload = lookup_payload(Found(found, "orbit", shareable=True))
    assert str(payload["content"]).splitlines() == [
        "**Issues matching “\\*x\\*” \\(open\\)**",
        "\\#3 Cron \\`runs\\` twice",
    ]
    assert _ids(payload) == [SHARE_PREFIX + "search *x* open"]
    shared = lookup_payload(Found(found, "orbit", shared_by="1500000000000000001"))
    assert "components" not in shared
    assert str(shared["content"]).endswith(
        wording.SHARED_BY.format(user="1500000000000000001", cmd="orbit", text="search *x* open")
    )
    failed = lookup_payload(
        Found(Result(Lookup("issue", "9"), "No issue #9.\nHint: search", False), "orbit", shareable=True)
    )
    assert failed == {"content": "**Issue \\#9**\nNo issue \\#9."}
    too_long = Lookup("docs", "w" * 90)
    assert "components" not in lookup_payload(Found(Result(too_long, "found", True), "orbit", shareable=True))


def test_the_usage_says_what_was_wrong_first_and_a_failure_is_one_short_note() -> None:
    assert lookup_payload(Help("orbit")) == {"content": wording.USAGE.format(cmd="orbit")}
    unknown = str(lookup_payload(Help("orbit", Usage("UNKNOWN_SUBCOMMAND", "fr`ob")))["content"])
    assert unknown.startswith("I don't know `frob`.\n\n") and unknown.endswith(wording.USAGE.format(cmd="orbit"))
    number = str(lookup_payload(Help("orbit", Usage("ISSUE_NEEDS_NUMBER")))["content"])
    assert number.startswith("`issue` needs an issue number, e.g. `/orbit issue 42`.")
    assert lookup_payload(LookupFailed()) == {"content": wording.LOOKUP_FAILED}


def test_each_click_note_is_its_own_sentence() -> None:
    assert click_note_text(Unrecorded()) == wording.EPHEMERAL_UNAVAILABLE
    assert click_note_text(Unrecorded(maybe=True)) == wording.APPROVAL_UNCONFIRMED
    decided = click_note_text(AlreadyDecided(Decision("approved", "1500000000000000001", 1.7e9)))
    assert decided == wording.APPROVAL_ALREADY.format(
        outcome=wording.APPROVAL_OUTCOME["approved"].format(user="1500000000000000001", when=1700000000)
    )
    assert click_note_text(AlreadyDecided(Decision("pending", None, 1.0))) == wording.APPROVAL_ALREADY.format(
        outcome="expired"
    )
    assert click_note_text(EmptyReply(3000)) == "The reply can't be empty or longer than 3000 characters."
    notes = (Unrecorded(), NotAllowed(), Gone(), Elsewhere(), NoLabelLeft(), EmptyReply(1))
    assert len({click_note_text(n) for n in notes}) == len(notes)


def test_the_intake_notes_and_the_held_note_in_discords_words() -> None:
    assert intake_note_text(EmptyQuestion()) == wording.EMPTY_QUESTION and "`@Atlas " in wording.EMPTY_QUESTION
    assert intake_note_text(Unavailable()) == wording.UNAVAILABLE
    assert intake_note_text(UnknownCommand()) == wording.UNKNOWN_COMMAND
    assert len({intake_note_text(n) for n in (EmptyQuestion(), Unavailable(), UnknownCommand())}) == 3
    assert held_content(Held("held_person", 4, 9)).startswith("You have asked 4 questions here")
    assert held_content(Held("held_channel", 4, 9)).startswith("This channel had its 9 answers")


def test_each_click_outcome_tells_the_discord_clicker_its_own_sentence() -> None:
    filing = {o: filing_click_text(FilingClick(o)) for o in ("drafting", "already", "nothing", "unavailable")}
    assert filing["already"] == said.FILE_ISSUE_ALREADY and filing["unavailable"] == wording.EPHEMERAL_UNAVAILABLE
    solved = {o: solved_click_text(SolvedClick(o)) for o in ("started", "already", "private", "nothing", "unavailable")}
    assert solved["started"] == said.SOLVED_STARTED and solved["unavailable"] == wording.EPHEMERAL_UNAVAILABLE
    assert len(set(filing.values())) == 4 and len(set(solved.values())) == 5


def test_a_filing_click_about_none_of_several_repositories_names_them_and_files_nowhere() -> None:
    text = filing_click_text(FilingClick("which_repo", ("acme/lib", "acme/cli")))
    assert "(acme/lib, acme/cli)" in text and "{repos}" not in text


def test_related_issues_are_links_with_their_evidence_and_no_button() -> None:
    labels = TriageItem("labels", Labels(("bug",)), "Draft", "p1", offered=("bug",), chosen=("bug",))
    related = (Related(5, "https://gh.example/5", 0.41, "same *frame*"),)
    payload = triage_payload(_card(labels, related=related))
    assert "Related, no action: [\\#5](<https://gh.example/5>) (0.41: same \\*frame\\*)" in str(payload["content"])
    assert _ids(payload) == _ids(triage_payload(_card(labels)))  # no control of their own
