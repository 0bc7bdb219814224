"""The offline model answers from code, pull requests, releases and discussions of the Orbit demo, each
with the permalink or URL of what it quoted, through the real loop and tools (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.settings import DEFAULT_DATA, Settings
from tests.support.agent_harness import RecordingReporter
from workers.process import runtime
from workers.runs.state import RunState

COMMIT = json.loads((DEFAULT_DATA / "knowledge" / "repo.json").read_text())["commit"]
REPO = "https://github.com/orbit-jobs/orbit"


@pytest.fixture
def ask(tmp_path: Path, redis_url: str):
    rt = runtime.build(Settings(home=tmp_path / "home", redis_url=redis_url, semantic_docs=False))

    def run(question: str) -> RunState:
        return rt.agent(RecordingReporter()).run(RunState(question=question))

    return run


def test_which_release_fixed_an_error_code_is_answered_by_the_release_note(ask) -> None:
    run = ask("Which release fixed ORB-1202?")
    assert [s.tools for s in run.steps][:2] == [["search_history"], ["get_history_item"]]
    assert run.answer.startswith(f"From release v3.1.1 ({REPO}/releases/tag/v3.1.1):")
    assert "ORB-1202 PermanentError log lines name the `permanent_errors` entry that matched" in run.answer
    assert run.sources == [f"{REPO}/releases/tag/v3.1.1"]


def test_where_something_happens_is_answered_with_the_lines_and_their_permalink(ask) -> None:
    run = ask("Where is the lease renewed?")
    assert [s.tools for s in run.steps][:2] == [["search_code"], ["read_file"]]
    [link] = run.sources
    assert link.startswith(f"{REPO}/blob/{COMMIT}/orbit/lease.py#L") and link in run.answer
    assert "renew_lease" in run.answer


def test_an_identifier_a_file_defines_leads_to_its_definition(ask) -> None:
    run = ask("What does compute_delay return?")
    assert [s.tools for s in run.steps][1] == ["read_file"]
    assert f"{REPO}/blob/{COMMIT}/orbit/retry.py#L11-L" in run.sources[0]
    assert "11: def compute_delay(" in run.answer


def test_a_pull_requests_description_and_a_discussions_answer_are_quoted(ask) -> None:
    pr = ask("Which pull request made heartbeat_seconds >= lease_seconds a startup error, and why not a warning?")
    assert f"{REPO}/pull/241" in pr.sources and "startup error over a warning" in pr.answer
    talk = ask("Was running workers in AWS Lambda discussed?")
    assert f"{REPO}/discussions/245" in talk.sources and "Lambda freezes the execution environment" in talk.answer
