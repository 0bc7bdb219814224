"""The offline model answers the demo questions usefully through the real loop and tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.settings import DEFAULT_DATA, Settings
from tests.support.agent_harness import RecordingReporter
from workers.process import runtime
from workers.runs.state import RunState
from workers.wording import OFFLINE_NOTE


@pytest.fixture
def ask(tmp_path: Path, redis_url: str):
    # Docs search by words: these tests pin which hit the offline model picks from search_docs' order
    # (on ties, the first). Ranking by meaning orders DST hits differently; tests/tools/docsearch/test_semantic.py
    # covers it.
    rt = runtime.build(Settings(home=tmp_path / "home", redis_url=redis_url, semantic_docs=False))
    assert isinstance(rt.model, __import__("workers.agent.offline", fromlist=["OfflineModel"]).OfflineModel)

    def run(question: str) -> RunState:
        return rt.agent(RecordingReporter()).run(RunState(question=question))

    return run


def _issue(number: int) -> dict:
    for line in (DEFAULT_DATA / "issues" / "issues.jsonl").read_text().splitlines():
        issue = json.loads(line)
        if issue["id"] == number:
            return issue
    raise AssertionError(f"no issue {number}")


def test_error_code_question_quotes_the_error_codes_page(ask) -> None:
    run = ask("What does ORB-1202 mean?")
    assert run.stop_reason == "done" and run.cost_usd == 0
    assert [s.tools for s in run.steps][:2] == [
        ["search_docs", "search_issues"],
        ["get_doc_section", "get_doc_section"],
    ]
    assert "`error-codes` § ORB-1202 PermanentError" in run.answer
    assert "not retried" in run.answer
    assert run.sources[0] == "error-codes"
    assert OFFLINE_NOTE in run.answer


def test_dst_question_lists_reports_of_double_runs(ask) -> None:
    run = ask("Has anyone reported jobs running twice on the DST change?")
    listed = [line for line in run.answer.splitlines() if line.startswith("- #")]
    assert len(listed) >= 3
    assert sum("twice" in line.lower() or "2x" in line.lower() or "dst" in line.lower() for line in listed) >= 2
    assert "`cron-scheduling` §" in run.answer  # the hit that matches the question best, not just the first
    issue_sources = [s for s in run.sources if s.startswith("#")]
    assert len(issue_sources) >= 3
    for source in issue_sources:  # every cited issue is a real one whose title the answer shows
        assert _issue(int(source[1:]))["title"] in run.answer


def test_config_default_question_quotes_the_default(ask) -> None:
    run = ask("What is the default value of max_payload_kb?")
    doc_part = run.answer.split("Related issues:")[0]
    assert "max_payload_kb" in doc_part and "256" in doc_part
    assert {"configuration", "payloads", "error-codes"} & set(run.sources)  # each of them states the default (256)


def test_issue_question_opens_that_issue(ask) -> None:
    run = ask("Show me issue #143")
    assert [s.tools for s in run.steps][0] == ["get_issue"]
    assert _issue(143)["title"] in run.answer
    assert run.sources == ["#143"]


def test_small_talk_needs_no_tools(ask) -> None:
    run = ask("Thanks, that's all for today!")
    assert [s.tools for s in run.steps] == [[]] and "welcome" in run.answer.lower()


def test_a_question_about_something_absent_says_so_instead_of_quoting_a_neighbour(ask) -> None:
    run = ask("How do I deploy on Nomad?")
    assert run.answer.startswith("I found nothing about Nomad in the docs or issues.")
    assert "From the docs" not in run.answer and "Related issues" not in run.answer
    assert run.sources == []


def test_an_unknown_error_code_is_not_answered_with_another_code(ask) -> None:
    run = ask("What does ORB-9999 mean?")
    assert run.answer.startswith("I found nothing about ORB-9999 in the docs or issues.")
    assert "ORB-1102" not in run.answer and run.sources == []


def test_an_unknown_issue_number_is_said_to_be_unknown(ask) -> None:
    run = ask("What does issue #9999 say?")
    assert run.answer.startswith("I found nothing about #9999 in the docs or issues.")
    assert run.sources == []


def test_a_version_must_match_exactly() -> None:
    from workers.agent.offline_evidence import Question

    asked = Question.of("Is there a fix in 3.9.0 for the lease bug?")
    assert "3.9.0" in asked.keywords
    assert not asked.answered_by("Fix in 3.1.0 for the lease bug, released with 3.1.0.")
    assert asked.answered_by("The lease bug: fixed in 3.9.0.")


def test_words_are_unicode_words() -> None:
    from workers.agent.offline_evidence import keywords

    assert keywords("¿Cómo configuro los workers en Zürich?") == ["Cómo", "configuro", "los", "workers", "en", "Zürich"]
    assert keywords("What does ORB-1202 mean for lease_seconds in 3.1.0?") == ["ORB-1202", "lease_seconds", "3.1.0"]


def test_a_question_in_another_language_names_what_it_found_nothing_about(ask) -> None:
    run = ask("Cómo configuro los workers?")
    assert "I found nothing about Cómo, configuro and los in the docs or issues." in run.answer
    [search] = [
        json.loads(i["arguments"]) for i in run.items if i.get("type") == "function_call" and i["name"] == "search_docs"
    ]
    assert search["query"] == "Cómo configuro los workers?"  # the question as asked: search ranks by meaning too


def test_a_closed_issue_is_summed_up_with_the_comment_that_resolved_it(ask) -> None:
    run = ask("Show me issue #148")
    resolution = _issue(148)["comments"][0]
    assert f"Resolved in comment 1, by {resolution['author']}:" in run.answer
    assert "misfire_grace_seconds = 21600" in run.answer  # the fix is in the comment, not the body
    assert "Set it to 4h, works" not in run.answer  # the reporter's thanks is not the resolution
    assert run.sources == ["#148"]


def test_only_what_was_quoted_is_cited(ask) -> None:
    run = ask("How many workers should I run?")
    docs = [s for s in run.sources if not s.startswith("#")]
    quoted_or_named = [ln for ln in run.answer.splitlines() if ln.startswith(("From the docs, ", "See also "))]
    assert docs and all(any(f"`{doc}`" in ln for ln in quoted_or_named) for doc in docs)
    assert "workers" not in run.sources  # the word is all over the answer; that page was not quoted
    listed = [line for line in run.answer.splitlines() if line.startswith("- #")]
    assert all(any(line.startswith(f"- {s} ") for line in listed) for s in run.sources if s.startswith("#"))


def test_a_plain_words_question_is_answered_from_the_closest_section_saying_how_sure(ask) -> None:
    """Few of its words are in the docs ('went', 'quiet', 'replied'): that is no reason to say nothing."""
    run = ask("My job went quiet and never replied, what stops a stuck one?")
    assert run.answer.startswith("From the docs, `workers` § Timeouts (Workers and concurrency):\n> ")
    assert "the parent kills the child" in run.answer
    assert "I'm not sure it answers you: it shares only “job”, “stuck” and “one”" in run.answer
    assert "I found nothing" not in run.answer and "workers" in run.sources
    [search] = [i["output"] for i in run.items if i.get("type") == "function_call_output"][:1]
    assert "No doc mentions" not in search  # ordinary words no doc has are not named as missing


def test_a_quote_is_prose_never_running_into_code(ask) -> None:
    run = ask("What does ORB-1103 mean?")
    quoted = [ln for ln in run.answer.splitlines() if ln.startswith("> ")]
    assert quoted and not any("orbit.worker ORB-1103" in ln or ln.startswith("> ```") for ln in quoted)
