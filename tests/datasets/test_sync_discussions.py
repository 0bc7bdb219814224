"""`atlas sync github` brings GitHub Discussions over GraphQL, incrementally (issue 27).

Against the GitHub stand-in's GraphQL endpoint, which validates every query against the part of GitHub's
schema Atlas reads (tests/standins/github_graphql.py) and pages as GitHub does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from githubkit.exception import GraphQLFailed

from atlas import github_client
from tests.standins.github_api import TOKEN, GitHubAPI
from tests.standins.github_graphql import add_discussion, reply
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for
from tools import ToolContext, dispatch, open_corpus, v2_registry


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(3, comments=1)) as server:
        yield server
        assert server.violations == []


def _graphql(api: GitHubAPI) -> int:
    return len([c for c in api.calls if c.method == "POST" and c.path.endswith("/graphql")])


def _search(settings: object, query: str) -> str:
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home))  # type: ignore[attr-defined]
    return dispatch(
        v2_registry(), "search_history", json.dumps({"query": query, "kind": "discussion", "limit": 3}), ctx
    ).text


def test_discussions_come_with_category_accepted_answer_and_replies_and_are_searchable(
    api: GitHubAPI, tmp_path: Path
) -> None:
    asked = add_discussion(
        api.repo,
        "Can workers run inside AWS Lambda?",
        "We run everything on Lambda.",
        category="Q&A",
        replies=(("gina", "Same question here."),),
        answer=("maint", "Not as workers: Lambda freezes the heartbeat thread between invocations."),
    )
    add_discussion(api.repo, "Grafana dashboard", "Sharing our dashboard.", category="Show and tell")
    settings = settings_for(api, tmp_path)
    report = run_sync(api, settings)
    assert report.complete and report.discussions == 2 and report.skipped == []
    rows = {
        r["number"]: r
        for r in map(json.loads, (settings.data_dir / "knowledge" / "discussions.jsonl").read_text().splitlines())
    }
    lambda_row = rows[asked["number"]]
    assert lambda_row["category"] == "Q&A" and lambda_row["answered"] is True
    assert lambda_row["answer"]["author"] == "maint" and "freezes the heartbeat" in lambda_row["answer"]["body"]
    assert [r["body"] for r in lambda_row["replies"]] == ["Same question here."]  # the answer is not a reply twice
    out = _search(settings, "heartbeat thread frozen")
    assert f"- discussion #{asked['number']} [Q&A, answered," in out and asked["url"] in out
    assert "accepted answer by maint" in out
    graphql = [c for c in api.calls if c.path.endswith("/graphql")][0]
    assert "orderBy: {field: UPDATED_AT, direction: DESC}" in graphql.body["query"]


def test_a_second_sync_stops_at_the_high_water_mark_and_a_reply_brings_a_discussion_back(
    api: GitHubAPI, tmp_path: Path
) -> None:
    for i in range(120):  # three pages of 50
        add_discussion(api.repo, f"Question {i} about queues", f"Body {i}.")
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).discussions == 120 and _graphql(api) == 3
    target = settings.data_dir / "knowledge" / "discussions.jsonl"
    before = target.stat().st_mtime_ns
    again = run_sync(api, settings, build_index=False)
    assert again.discussions == 0 and _graphql(api) == 4  # one page, and it stops there
    assert target.stat().st_mtime_ns == before  # nothing rewritten: the knowledge index is not rebuilt
    oldest = min(api.repo.discussions)
    reply(api.repo, oldest, "Use a priority queue per worker: zephyrqueue fixes it.", author="maint", accept=True)
    changed = run_sync(api, settings)
    assert changed.discussions == 1 and _graphql(api) == 5
    assert f"#{oldest} [Q&A, answered," in _search(settings, "zephyrqueue")


def test_a_sync_killed_mid_walk_walks_again_to_the_old_mark(api: GitHubAPI, tmp_path: Path) -> None:
    for i in range(60):
        add_discussion(api.repo, f"Topic {i}", f"Body {i}.")
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings, build_index=False).discussions == 60
    for number in sorted(api.repo.discussions)[:55]:  # 55 changed: two pages above the mark
        reply(api.repo, number, f"late reply to {number}")
    # the first page is stored, the second answered 502: the sync stops before the mark moves
    api.before(
        r"POST /api/graphql", lambda: api.before(r"POST /api/graphql", lambda: api.fail_next(r"POST /api/graphql", 502))
    )
    stopped = run_sync(api, settings, build_index=False)
    assert not stopped.complete and "502" in str(stopped.stopped)
    walked = _graphql(api)
    done = run_sync(api, settings, build_index=False)
    assert done.complete and done.discussions == 5 and _graphql(api) == walked + 2  # from the top down to the old mark
    rows = [json.loads(r) for r in (settings.data_dir / "knowledge" / "discussions.jsonl").read_text().splitlines()]
    assert sum(1 for r in rows if r["replies"]) == 55


def test_discussions_can_be_turned_off_and_a_token_without_the_permission_leaves_them_out(
    api: GitHubAPI, tmp_path: Path
) -> None:
    assert run_sync(api, settings_for(api, tmp_path / "none"), build_index=False).complete
    assert _graphql(api) == 0  # the repository has Discussions turned off (has_discussions: false): nothing asked
    add_discussion(api.repo, "A question", "Body.")
    off = settings_for(api, tmp_path / "off", ATLAS_SYNC_DISCUSSIONS="off")
    assert run_sync(api, off, build_index=False).complete and _graphql(api) == 0
    assert not (off.data_dir / "knowledge" / "discussions.jsonl").exists()
    api.tokens[TOKEN].pop("discussions")
    settings = settings_for(api, tmp_path / "on")
    report = run_sync(api, settings, build_index=False)
    assert report.complete and report.discussions is None
    assert (
        report.skipped
        and "Discussions: read" in report.skipped[0]
        and "ATLAS_SYNC_DISCUSSIONS=off" in report.skipped[0]
    )


def test_a_spent_graphql_limit_is_waited_out_and_the_walk_goes_on(api: GitHubAPI, tmp_path: Path) -> None:
    add_discussion(api.repo, "A question", "Body.")
    api.graphql_limited = 1
    sleeps: list[float] = []
    report = run_sync(api, settings_for(api, tmp_path), sleeps=sleeps, build_index=False)
    assert report.complete and report.discussions == 1 and _graphql(api) == 2
    assert len(sleeps) == 1 and 3000 < sleeps[0] <= 3601  # until the stand-in's x-ratelimit-reset, an hour away


def test_the_standin_refuses_a_field_github_does_not_have_and_an_unbounded_connection(
    api: GitHubAPI, tmp_path: Path
) -> None:
    gh = settings_for(api, tmp_path).github
    assert gh is not None
    client = github_client.client(gh)
    with pytest.raises(GraphQLFailed, match="Cannot query field 'upvotes'"):
        client.graphql.request(
            'query { repository(owner: "acme", name: "rocket") { discussions(first: 5) { nodes { upvotes } } } }'
        )
    with pytest.raises(GraphQLFailed, match="must provide a `first` or `last`"):
        client.graphql.request('query { repository(owner: "acme", name: "rocket") { discussions { totalCount } } }')
    assert api.violations == ["graphql: Cannot query field 'upvotes' on type 'Discussion'."]
    api.violations.clear()


def test_the_command_says_once_which_source_it_left_out_and_why(
    api: GitHubAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from atlas.cli.main import main
    from tests.support.github_harness import cli_env

    add_discussion(api.repo, "A question", "Body.")
    api.tokens[TOKEN].pop("discussions")
    cli_env(monkeypatch, api, tmp_path)
    assert main(["sync", "github", "acme/rocket"]) == 0
    err = capsys.readouterr().err
    assert err.count("left out") == 1 and "atlas sync: discussions left out:" in err and "Discussions: read" in err
    assert "Traceback" not in err
