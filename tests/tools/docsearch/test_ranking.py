"""Docs ranking that carries over to questions nobody tuned it on (tools/docsearch/index.py, docs_bridge.py,
docs_vocabulary.py): users' words learned from the project's issue threads, a small general vocabulary,
headings that count each word once."""

from __future__ import annotations

import json
from pathlib import Path

from tools.docsearch.bridge import asked_texts, identifiers, thread_texts
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import parse_page
from tools.docsearch.vocabulary import SYNONYMS

PAGES = {
    p.doc_id: p
    for p in (
        parse_page(
            "commands", "## Sending commands\n\nCall `send_stop_job_command(redis, job_id)` from any process.\n"
        ),
        parse_page("jobs", "## Job objects\n\nA job is created by `enqueue`; its id identifies it in Redis.\n"),
        parse_page("other", "## Queues\n\nA queue holds jobs until a worker takes them.\n"),
    )
}
THREAD = "Abort a job that is executing right now\nI want to abort it midway. Is send_stop_job_command the way?"


def test_an_issue_thread_brings_its_words_to_the_section_naming_its_identifier() -> None:
    question = "how do I abort a job midway"
    assert DocsIndex(PAGES).search(question, 1)[0].doc_id == "jobs"  # 'abort' and 'midway' are in no doc
    assert DocsIndex(PAGES, [THREAD]).search(question, 1)[0].doc_id == "commands"


def test_an_identifier_every_section_holds_bridges_nothing() -> None:
    common = {f"p{i}": parse_page(f"p{i}", f"## Part {i}\n\nUse `job.save_meta()` here.\n") for i in range(5)}
    assert asked_texts([p.sections[0].text for p in common.values()], ["Progress bar?\njob.save_meta"]) == [""] * 5
    assert identifiers("e.g. in-memory os.fork() send_stop_job_command FailedJobRegistry 3.1.0") == {
        "os.fork",
        "send_stop_job_command",
        "failedjobregistry",
    }


def test_words_only_issue_threads_have_are_still_named_as_missing_from_the_docs() -> None:
    index = DocsIndex(PAGES, [THREAD])
    assert index.unknown_words("abort with Kafka") == [
        "Kafka"
    ]  # 'abort' is an ordinary word: not a sign of a missing topic


def test_thread_texts_reads_titles_and_bodies_and_skips_what_it_cannot(tmp_path: Path) -> None:
    source = tmp_path / "issues.jsonl"
    source.write_text(json.dumps({"id": 1, "title": "T", "body": "B" * 5000}) + "\nnot json\n[1]\n")
    assert thread_texts(source) == ["T\n" + "B" * 2000]
    assert thread_texts(tmp_path / "absent.jsonl") == []


def test_the_vocabulary_names_no_identifier() -> None:
    """General words only: no snake_case, dotted or CamelCase names of one project (those were what
    did not carry over to held-out questions)."""
    assert all(not identifiers(words) for words in SYNONYMS.values())
    pages = {
        p.doc_id: p
        for p in (
            parse_page("ops", "## Suspending workers\n\nRun `rq suspend`.\n"),
            parse_page("jobs", "## Jobs\n\nHow workers take jobs.\n"),
        )
    }
    assert DocsIndex(pages).search("pause the workers", 1)[0].doc_id == "ops"
