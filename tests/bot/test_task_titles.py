"""What a tool call is doing, in words: the progress line for each call on Slack and Discord alike."""

from __future__ import annotations

import json

from workers.messages.task_titles import task_title


def test_task_titles_say_what_the_tool_is_doing() -> None:
    assert (
        task_title("search_issues", json.dumps({"query": "redis  timeout", "state": "open"}))
        == "Searching open issues for “redis timeout”"
    )
    assert task_title("get_issue", json.dumps({"issue_id": 42, "include": []})) == "Reading issue #42"
    assert task_title("search_docs", json.dumps({"query": "lease_seconds"})) == "Searching the docs for “lease_seconds”"
    assert (
        task_title("get_doc_section", json.dumps({"doc_id": "leases", "heading": "Heartbeats"}))
        == "Reading the docs: leases § Heartbeats"
    )
    assert task_title("mystery", "not json") == "Running mystery"
    assert len(task_title("search_docs", json.dumps({"query": "x" * 5000}))) <= 150
