"""create_issue and link_issue: checked before a card, one POST on GitHub, a write in doubt settled by its
marker; the demo tracker's new issue survives a rebuild; the offline draft of a thread."""

from __future__ import annotations

import json
from pathlib import Path

from datasets import tracker_db
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.approvals_data import ISSUES, make_data
from tests.support.github_writes_harness import call_tool, tracker_for
from tools import dispatch, open_corpus, v2_registry
from tools.context import ToolContext
from tools.dispatch import ToolOutput, execute, validate
from tools.github.tracker import marker
from tools.issue_store import IssueStore
from workers.followup.draft import draft
from workers.followup.links import linked
from workers.runs.state import Origin, RunState, Turn

TRACEBACK = "Traceback (most recent call last):\n  File \"orbit/worker.py\", line 41, in run\nKeyError: 'lease'"


def test_create_issue_is_checked_against_the_labels_posts_once_with_its_marker_and_a_502_is_settled_by_it(
    tmp_path: Path,
) -> None:
    with GitHubAPI(generate(12, comments=4)) as api:
        tracker, settings = tracker_for(api, tmp_path)
        refused = call_tool(
            tracker, settings, "create_issue", {"title": "Lease lost", "body": "Body", "labels": ["no-such"]}
        )
        assert not refused.ok and "no-such" in refused.text and api.requests("POST") == []
        out = call_tool(
            tracker, settings, "create_issue", {"title": "Lease lost", "body": "Seen on 3.1", "labels": ["bug"]}, "c9"
        )
        [post] = api.requests("POST", r"/issues$")
        assert out.ok and out.text.startswith(f"Filed #{post_number(api)}")
        assert post.body["title"] == "Lease lost" and post.body["labels"] == ["bug"]
        assert post.body["body"].endswith(marker("r1.c9"))

        # GitHub made it but answered 502: in doubt, and found by its marker, never posted again
        api.apply_then_fail(r"POST /repos/acme/rocket/issues$", 502)
        out = call_tool(tracker, settings, "create_issue", {"title": "Lease lost", "body": "Body", "labels": []}, "c1")
        assert not out.ok and out.in_doubt
        found = tracker.settle("create_issue", {"title": "Lease lost"}, "r1.c1")
        assert found is not None and found.startswith(f"Filed #{post_number(api)}")
        assert tracker.settle("create_issue", {"title": "Lease lost"}, "r1.other") is None
        assert len(api.requests("POST", r"/issues$")) == 2
        assert api.violations == []


def post_number(api: GitHubAPI) -> int:
    return max(api.repo.issues)


def test_the_demo_tracker_files_a_searchable_issue_that_survives_a_rebuild(tmp_path: Path) -> None:
    data = make_data(tmp_path / "data")
    ctx = ToolContext(corpus=open_corpus(data), run_id="run1", call_id="call_a")
    registry = v2_registry()
    args = validate(
        registry,
        "create_issue",
        json.dumps({"title": "Zeppelin queue stalls", "body": "On 3.1", "labels": ["bug"]}),
        ctx,
    )
    assert not isinstance(args, ToolOutput)
    out = execute(registry, "create_issue", args, ctx)
    number = max(i["id"] for i in ISSUES) + 2  # make_data adds #9
    assert out.ok and out.text.startswith(f"Filed #{number} ")
    assert (
        f"#{number}"
        in dispatch(
            registry,
            "search_issues",
            json.dumps({"query": "zeppelin", "state": None, "limit": 3, "detail": "concise"}),
            ctx,
        ).text
    )
    (tracker_db.db_path(data)).unlink()
    tracker_db.ensure_db(data)  # rebuilt from issues.jsonl: the journal replays the new issue
    store = IssueStore(tracker_db.db_path(data))
    try:
        issue = store.get(number)
        assert issue is not None and issue.title == "Zeppelin queue stalls"
    finally:
        store.close()


def test_link_issue_names_an_existing_issue_and_writes_nothing(tmp_path: Path) -> None:
    data = make_data(tmp_path / "data")
    ctx = ToolContext(corpus=open_corpus(data), run_id="run1")
    out = dispatch(v2_registry(), "link_issue", json.dumps({"issue_id": 2}), ctx)
    assert out.ok and out.text.startswith("Linked this thread to #2 ")
    missing = dispatch(v2_registry(), "link_issue", json.dumps({"issue_id": 99}), ctx)
    assert not missing.ok and "No issue #99" in missing.text
    run = RunState(
        question="q",
        items=[
            {"type": "function_call", "call_id": "a", "name": "link_issue", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": out.text},
            {"type": "function_call", "call_id": "b", "name": "link_issue", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "b", "output": missing.text},
        ],
    )
    assert linked(run) == [(2, "linked")]


def test_the_offline_draft_keeps_the_askers_words_versions_traceback_and_the_link() -> None:
    run = RunState(
        question="<@U0ATLAS> still failing after the upgrade to orbit 3.1.2",
        origin=Origin(kind="slack", channel="C1", thread_ts="1.2"),
        history=[Turn(question=f"<@U0ATLAS> My worker crashes on Python 3.11:\n{TRACEBACK}", answer="Try ORB-1101.")],
        answer="This looks like a lease bug.",
    )
    made = draft(run, "https://example.slack.com/archives/C1/p12", ["bug", "docs", "worker", "duplicate"], "slack")
    assert made.title == "My worker crashes on Python 3.11:"
    assert "U0ATLAS" not in made.body and "> still failing after the upgrade to orbit 3.1.2" in made.body
    assert "- Python 3.11" in made.body and "- orbit 3.1.2" in made.body
    assert (
        TRACEBACK in made.body and "https://example.slack.com/archives/C1/p12" in made.body
    )  # whole: its indentation kept
    assert made.labels == ["bug", "worker"]
