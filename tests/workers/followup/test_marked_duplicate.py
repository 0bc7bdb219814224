"""A duplicate closed in GitHub's UI leaves no "Duplicate of #N" (issue 35 item 12): the webhook job asks GitHub's
GraphQL API, through githubkit and the stand-in (which validates the query against GitHub's schema), for the
issue's last MarkedAsDuplicateEvent; the close notice names the original and triage learns it. Another
repository's canonical, an undone mark, a refused or rate-limited query each leave today's words."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from githubkit.exception import GraphQLFailed

from atlas import github_client
from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_graphql_issues import close_as_duplicate
from tests.standins.github_repo import generate
from tests.standins.github_webhooks import payload, sent_by
from tests.support.github_harness import run_sync, settings_for
from workers.chat import ThreadNote
from workers.followup import marked_duplicate
from workers.followup import subscriptions as subs
from workers.jobs import github as github_jobs
from workers.process import runtime
from workers.runs.post_once import KeyedSlot
from workers.runs.state import Origin
from workers.triage import outcomes

THREAD = Origin(kind="slack", team="T1", channel="C1", thread_ts="1.1")


@dataclass
class Platform:
    posted: list[str] = field(default_factory=list)

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        self.posted.append(text)
        if once is not None:
            once.record(place.channel or "", str(len(self.posted)))
        return "posted"


@dataclass
class Parts:
    conn: redis.Redis
    settings: Settings
    platform: Platform = field(default_factory=Platform)

    def platform_for(self, kind: str) -> Platform:
        return self.platform


@pytest.fixture
def api() -> Iterator[GitHubAPI]:
    with GitHubAPI(generate(8, comments=0, pull_every=100)) as server:
        yield server
        assert server.violations == []  # every query was one GitHub's schema accepts


@pytest.fixture
def parts(api: GitHubAPI, tmp_path: Path, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Parts:
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).complete
    made = Parts(redis_conn, settings)
    monkeypatch.setattr(runtime, "_installed", made)
    return made


def _closed_in_ui(api: GitHubAPI, parts: Parts, number: int, **mark: Any) -> str:
    """Issue `number` closed as a duplicate of #2 in GitHub's UI, followed by a thread, its webhook applied."""
    subs.subscribe(parts.conn, subs.tracker_name(parts.settings), number, THREAD, "run-1", "filed")
    closed = close_as_duplicate(api.repo, number, 2, **mark)
    body = sent_by(payload("issues-closed", api.repo, action="closed", issue=closed), "maria")
    return github_jobs.apply_event("issues", body)


def _graphql(api: GitHubAPI) -> list[Any]:
    return [c for c in api.calls if c.method == "POST" and c.path.endswith("/graphql")]


def test_a_duplicate_closed_in_githubs_ui_names_its_original_in_the_notice_and_in_triages_outcome(
    api: GitHubAPI, parts: Parts
) -> None:
    done = _closed_in_ui(api, parts, 5)
    assert not [c for c in api.repo.comments.values() if c["issue_url"].endswith("/issues/5")]  # no comment names it
    assert "duplicate 2 accepted (maintainer)" in done
    [told] = parts.platform.posted
    assert told.startswith("#5 ") and "closed by @maria as a duplicate of #2:" in told
    [asked] = _graphql(api)  # one small query
    assert asked.body["variables"] == {"owner": "acme", "name": "rocket", "number": 5}
    assert "MARKED_AS_DUPLICATE_EVENT" in asked.body["query"] and "last: 1" in asked.body["query"]
    assert [(o.issue, o.kind, o.value, o.accepted) for o in outcomes.load(parts.conn, "acme/rocket")] == [
        (5, "duplicate", "2", True)
    ]


@pytest.mark.parametrize("mark", [{"canonical_repo": "other/elsewhere"}, {"unmarked": True}])
def test_another_repositorys_original_or_an_undone_mark_is_not_named(
    api: GitHubAPI, parts: Parts, mark: dict[str, Any]
) -> None:
    _closed_in_ui(api, parts, 6, **mark)
    [told] = parts.platform.posted
    assert told.split(": ")[0].endswith("as a duplicate") and "#2" not in told
    assert [(o.issue, o.value) for o in outcomes.load(parts.conn, "acme/rocket")] == [(6, "")]


def test_a_refused_or_rate_limited_query_falls_back_to_todays_words_once(api: GitHubAPI, parts: Parts) -> None:
    api.graphql_limited = 5  # GitHub: RATE_LIMITED, with x-ratelimit-remaining 0
    done = _closed_in_ui(api, parts, 7)
    assert done.startswith("applied issues.closed")
    [told] = parts.platform.posted
    assert told.split(": ")[0].endswith("as a duplicate")
    assert len(_graphql(api)) == 1 and api.graphql_limited == 4  # asked once, not waited out, not retried
    assert [(o.issue, o.value) for o in outcomes.load(parts.conn, "acme/rocket")] == [(7, "")]


def test_a_duplicate_comment_is_read_first_and_github_is_not_asked(api: GitHubAPI, parts: Parts) -> None:
    api.repo.add_comment(8, "Duplicate of #3")
    assert run_sync(api, parts.settings).complete
    _closed_in_ui(api, parts, 8)
    [told] = parts.platform.posted
    assert "as a duplicate of #3:" in told and _graphql(api) == []


def test_the_standin_refuses_a_field_github_does_not_have_and_an_unknown_issue_is_none(
    api: GitHubAPI, parts: Parts
) -> None:
    gh = parts.settings.github
    assert gh is not None
    client = github_client.client(gh)
    with pytest.raises(GraphQLFailed):  # GitLab's name for it, not GitHub's
        client.graphql.request(
            'query { repository(owner: "acme", name: "rocket") { issue(number: 5) { timelineItems(last: 1) '
            "{ nodes { ... on MarkedAsDuplicateEvent { originalIssue { number } } } } } } }"
        )
    assert any("originalIssue" in v for v in api.violations)
    api.violations.clear()
    assert marked_duplicate.original(gh, parts.settings.data_dir, 999) is None  # GitHub's NOT_FOUND: no crash
