"""The offline answer counts a section's code as its content and quotes the code block that answers; a question
whether something was reported leads with the issue search found first; "found nothing" names only words that
no doc and no issue has. Through the real tools, on a small project with docs and issues (words only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.workers.agent.test_offline_calibrated import answer
from tools import ToolContext, open_corpus
from workers.agent.offline import verdict
from workers.wording import OFFLINE_NOTHING_FOUND

CLIENTS = """# Clients

## Timeouts

Every request waits five seconds by default.

You can set timeouts for an individual request:

```python
client.get(url, timeout=httpx.Timeout(10.0, connect=2.0))
```

## Hooks

Register callables that run on each response.

```python
app.config["HOOKS"] = [log_response]
init_db(app)
```
"""
ISSUES = [
    {
        "id": 7,
        "title": "Worker crashes when the Redis server restarts",
        "state": "closed",
        "author": "ann",
        "body": "The worker exits with ConnectionError after redis-server is restarted.",
        "created_at": "2024-01-02",
        "closed_at": "2024-02-01",
        "labels": [],
        "duplicate_of": None,
        "comments": [
            {
                "author": "bob",
                "created_at": "2024-01-20",
                "body": "Fixed: the worker now reconnects with backoff.",
                "position": 1,
            }
        ],
    },
    {
        "id": 9,
        "title": "Timeouts in the docs are unclear",
        "state": "open",
        "author": "cy",
        "body": "Which timeout applies?",
        "created_at": "2024-03-01",
        "closed_at": None,
        "labels": [],
        "duplicate_of": None,
        "comments": [],
    },
    {
        "id": 11,
        "title": "Windows issue: the worker issue with os.fork",
        "state": "open",
        "author": "dee",
        "body": "Running a worker on Windows fails: os.fork is missing, an issue for every job.",
        "created_at": "2024-04-01",
        "closed_at": None,
        "labels": [],
        "duplicate_of": None,
        "comments": [],
    },
    {
        "id": 13,
        "title": "Deployment notes",
        "state": "open",
        "author": "fay",
        "body": "We run the workers on Kubernetes.",
        "created_at": "2024-06-01",
        "closed_at": None,
        "labels": [],
        "duplicate_of": None,
        "comments": [],
    },
    {
        "id": 12,
        "title": "Stop a job that runs",
        "state": "closed",
        "author": "eve",
        "body": "I want to stop a job in the middle.",
        "created_at": "2024-05-01",
        "closed_at": "2024-05-09",
        "labels": [],
        "duplicate_of": None,
        "comments": [],
    },
]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "issues").mkdir()
    (root / "docs" / "clients.md").write_text(CLIENTS)
    (root / "issues" / "issues.jsonl").write_text("\n".join(json.dumps(i) for i in ISSUES) + "\n")
    return ToolContext(corpus=open_corpus(root))


def test_a_section_whose_code_alone_names_the_identifier_is_quoted(ctx: ToolContext) -> None:
    text, _ = answer(ctx, "Where do I call init_db?")
    assert "From the docs, `clients` § Hooks" in text, text
    assert '```python\napp.config["HOOKS"] = [log_response]\ninit_db(app)\n```' in text


def test_the_quote_carries_the_code_block_under_its_paragraph(ctx: ToolContext) -> None:
    text, _ = answer(ctx, "How do I set a timeout for an individual request?")
    assert "From the docs, `clients` § Timeouts" in text
    assert (
        "> You can set timeouts for an individual "
        "request:\n```python\nclient.get(url, timeout=httpx.Timeout(10.0, connect=2.0))\n```" in text
    )


def test_an_issue_question_leads_with_the_issue_search_found_first(ctx: ToolContext) -> None:
    text, called = answer(ctx, "Has anyone reported the worker crashing when Redis restarts?")
    assert "get_issue" in called
    assert text.startswith("Issue #7 Worker crashes when the Redis server restarts"), text
    assert "the worker now reconnects with backoff" in text  # the comment that resolved it


def test_the_words_that_frame_an_issue_question_are_not_searched_for(ctx: ToolContext) -> None:
    """'Is there an issue about ...': 'issue' says what is asked, not what about; searched for, it put an issue
    whose title says "issue" first."""
    text, called = answer(ctx, "Is there an issue about stopping a job that is already running?")
    assert "get_issue" in called
    assert text.startswith("Issue #12 Stop a job that runs"), text


def test_the_not_found_note_names_only_words_no_doc_or_issue_has() -> None:
    """The section read lacks `connect` and `retries`, but search named no word as absent: some doc has them."""
    results = [
        (
            "search_docs",
            'Doc sections for "q" (best first; open one with get_doc_section):\n'
            "- clients § Hooks [Clients]: Register callables that run on each response.",
        ),
        ("search_issues", 'No issues match "connect retries hooks". Try fewer or other words.'),
        ("get_doc_section", "[clients § Hooks] Clients\nRegister callables that run on each response."),
    ]
    text, confident = verdict("Do hooks see connect retries for 2.0.1?", results)
    assert text.startswith(OFFLINE_NOTHING_FOUND) and not confident, text


def test_a_subsection_read_after_its_parent_is_the_one_quoted() -> None:
    """Search ranked a section first and its subsection second: the parent's read stops at its lead (cut before
    its subsections), so the subsection is the answer and the parent the "see also"."""
    results = [
        (
            "get_doc_section",
            "[queues § Enqueueing] Queues\nPut any function call on a queue with enqueue.\n\n"
            "[section truncated: 900 more tokens] Subsections after the cut: 'Enqueueing › Unique jobs'.",
        ),
        (
            "get_doc_section",
            "[queues § Enqueueing › Unique jobs] Queues\nPass unique=True: a job is never queued twice.",
        ),
    ]
    text, _ = verdict("How do I keep a job from being queued twice?", results)
    assert text.startswith("From the docs, `queues` § Enqueueing › Unique jobs (Queues):\n> Pass unique=True"), text
    assert "See also `queues` § Enqueueing (Queues)." in text


def test_a_word_an_issue_has_though_no_title_shown_does_is_not_named_as_found_nowhere(ctx: ToolContext) -> None:
    """No doc mentions Nomad or Kubernetes; #13's title does not say Kubernetes, its body does: each word is
    looked up in the issues by itself before the answer names it."""
    text, called = answer(ctx, "How do I set timeouts on Nomad or Kubernetes?")
    assert text.startswith("I found nothing about Nomad in the docs or issues."), text
    assert called.count("search_issues") == 3  # the question's words, then Nomad and Kubernetes each
