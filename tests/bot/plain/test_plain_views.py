"""The plain-text surface renders the same message values as Slack and Discord: no markup, ids for sources, the
stop reason's code, a failure said in the shared sentence with its slots filled by nothing."""

from __future__ import annotations

from bot.plain import wording
from bot.plain.views.answer import answer_text
from bot.plain.views.approval import paused_text
from workers.messages.answer import Answer, Source
from workers.messages.approval import CardView


def _answer(**changes: object) -> Answer:
    fields: dict[str, object] = {
        "run_id": "r1",
        "body": "ORB-1202 is **PermanentError**.",
        "failed": False,
        "partial": False,
        "reason": "done",
        "sources": (Source("error-codes", "https://docs.example/error-codes"), Source("#12", None)),
        "steps": 2,
        "tokens": 1234,
        "cost_usd": 0.00014,
        "fileable": True,
        "votes": True,
        "stop_code": "done",
        **changes,
    }
    return Answer(**fields)  # type: ignore[arg-type]


def test_an_answer_is_its_body_its_sources_by_id_and_a_footer() -> None:
    text = answer_text(_answer())
    assert text.splitlines()[0] == "ORB-1202 is **PermanentError**."  # the model's Markdown, as it wrote it
    assert "Sources: error-codes, #12" in text and "https://" not in text
    assert text.endswith("-- 2 steps, 1,234 tokens, $0.0001, stop: done")


def test_a_partial_answer_says_so_in_its_footer_with_the_stop_code() -> None:
    text = answer_text(_answer(partial=True, steps=1, stop_code="max_steps", reason="the step limit", sources=()))
    assert text.endswith("-- 1 step, 1,234 tokens, $0.0001, stop: max_steps (partial)") and "Sources" not in text


def test_a_failed_run_says_it_could_not_finish_in_the_shared_words_without_markup() -> None:
    text = answer_text(_answer(failed=True, body="", reason="the model API is unavailable", votes=False))
    assert text.splitlines()[0] == "x I couldn't finish this one: the model API is unavailable"
    assert wording.NO_ANSWER not in text and "*" not in text.splitlines()[0]
    with_body = answer_text(_answer(failed=True, body="What I found so far.", reason="a tool failed"))
    assert with_body.splitlines()[:2] == ["x I couldn't finish this one: a tool failed", "What I found so far."]


def test_an_empty_answer_is_shown_as_none() -> None:
    assert answer_text(_answer(body="")).startswith(wording.NO_ANSWER)


def test_a_paused_run_lists_each_proposed_action_from_its_card() -> None:
    cards = [
        CardView("p1", "add_labels", {"issue_id": 3, "labels": ["needs-repro"]}, None, None, "", None, 0.0),
        CardView("p2", "post_comment", {"issue_id": 3, "body": "Thanks!"}, None, None, "", None, 0.0),
    ]
    lines = paused_text(cards).splitlines()
    assert lines[0] == wording.PAUSED.format(count=2) and lines[-1] == wording.PAUSED_WHERE
    assert lines[1:3] == [
        '  - add_labels({"issue_id": 3, "labels": ["needs-repro"]})',
        '  - post_comment({"issue_id": 3, "body": "Thanks!"})',
    ]
