"""The offline answer on a project with docs only (no code synced): search's calibrated "the docs do not
cover this" (tools/docsearch/confidence.py), its order trusted for the section quoted, and code questions
answered from the docs when no code is there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tools import ToolContext, dispatch, open_corpus, v2_registry
from workers.agent.model import ModelRequest
from workers.agent.offline import OfflineModel
from workers.wording import OFFLINE_CLOSEST, OFFLINE_FROM_DOCS

JOBS = """# Jobs

## Storing data on jobs

Use the `meta` dictionary of the job; other processes see it once it is written back.

```python
job.meta["progress"] = 40
job.save_meta()
```

## Failed jobs

A job that raises an exception is moved to the `FailedJobRegistry`, where it can be requeued.

## Logging

RQ workers log to stderr; log rotation is left to the system.
"""
WORKERS = """# Workers

## Starting workers

Run `rq worker` with the queues to listen on; RQ logs each job it takes. A worker saves its state in Redis.
"""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "issues").mkdir()
    (root / "docs" / "jobs.md").write_text(JOBS)
    (root / "docs" / "workers.md").write_text(WORKERS)
    (root / "issues" / "issues.jsonl").write_text("")
    return ToolContext(corpus=open_corpus(root))  # words only: no embedding model in these tests


def answer(ctx: ToolContext, question: str) -> tuple[str, list[str]]:
    """The offline model's answer through the real tools, and the tools it called."""
    model, registry = OfflineModel(), v2_registry()
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": question}]
    called: list[str] = []
    for _ in range(6):
        reply = model.respond(ModelRequest(instructions="", input=items, tools=[]))
        if not reply.calls:
            return reply.text, called
        items += reply.output
        for call in reply.calls:
            called.append(call["name"])
            out = dispatch(registry, call["name"], call["arguments"], ctx)
            items.append({"type": "function_call_output", "call_id": call["call_id"], "output": out.text})
    raise AssertionError("no answer in 6 steps")


def search(ctx: ToolContext, query: str) -> str:
    return dispatch(v2_registry(), "search_docs", json.dumps({"query": query, "k": 3}), ctx).text


def test_search_says_the_docs_likely_do_not_cover_a_question_most_of_whose_words_no_doc_has(ctx: ToolContext) -> None:
    out = search(ctx, "How do I log in to the RQ admin panel with single sign-on?")
    assert (
        "(Weak match: no doc has the words admin, panel, single, sign-on, and no section is close" in out
    )  # 'log' and 'RQ' are
    assert "Weak match" not in search(ctx, "Where do failed jobs go after an exception?")  # every word is in a doc
    assert "Weak match" not in search(
        ctx, "Where do failed jobs end up after a crash?"
    )  # half its words absent, but the best section holds the rest


def test_the_offline_answer_says_nothing_was_found_rather_than_quoting_a_section_sharing_two_common_words(
    ctx: ToolContext,
) -> None:
    text, _ = answer(ctx, "How do I log in to the RQ admin panel with single sign-on?")
    assert text.startswith("I found nothing about admin, panel, single and sign-on in the docs"), text
    assert OFFLINE_FROM_DOCS.split("{")[0] not in text


def test_a_where_question_with_no_code_synced_is_answered_from_the_docs(ctx: ToolContext) -> None:
    text, called = answer(ctx, "Where do jobs that raised an exception end up?")
    assert called[0] == "search_code" and "search_docs" in called  # the code search's hint is followed
    assert "From the docs, `jobs` § Failed jobs" in text and "FailedJobRegistry" in text


def test_the_section_search_ranks_first_is_quoted_with_the_code_that_holds_the_words(ctx: ToolContext) -> None:
    top = search(ctx, "save progress").splitlines()[1]
    assert top.startswith("- jobs § Storing data on jobs")  # ranked first by the words of its code
    text, _ = answer(ctx, "save progress")
    assert "From the docs, `jobs` § Storing data on jobs" in text and "`meta` dictionary" in text
    assert '\n```python\njob.meta["progress"] = 40\njob.save_meta()\n```\n' in text  # the code under it, fenced
    assert OFFLINE_CLOSEST not in text and "“save” and “progress”" in text  # its code holds both words
