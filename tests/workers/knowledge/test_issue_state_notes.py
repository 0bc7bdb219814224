"""An issue an answer cited changes state through the `issues` webhook (issue 39 item 5), on the GitHub stand-in
with the webhook job itself: a close tells the thread whose answer cited it open, once across a redelivery; a
reopening tells the thread whose answer cited it closed, even when that thread follows the issue (the close
notice of closing the loop tells closes only, so a followed thread is left to it for a close alone)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.standins.github_webhooks import payload, sent_by
from tests.support.github_harness import run_sync, settings_for
from tools.corpus import open_corpus
from workers.chat import ThreadNote
from workers.followup import subscriptions as subs
from workers.jobs import github as github_jobs
from workers.knowledge import watches
from workers.knowledge.cited import cited
from workers.process import runtime
from workers.runs.post_once import KeyedSlot
from workers.runs.state import Origin, RunState

NUMBER = 3


@dataclass
class Platform:
    posted: list[tuple[str, str]] = field(default_factory=list)

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        self.posted.append((place.thread_ts or "", text))
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


@pytest.fixture
def parts(api: GitHubAPI, tmp_path: Path, redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> Parts:
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).complete
    made = Parts(redis_conn, settings)
    monkeypatch.setattr(runtime, "_installed", made)
    return made


def _answered(parts: Parts, thread: str) -> RunState:
    """A Slack answer in `thread` citing the issue, watched as the issue is now."""
    run = RunState(
        question="has anyone reported this?", origin=Origin(kind="slack", team="T1", channel="C1", message_ts=thread)
    )
    run.answer, run.sources = f"Yes: #{NUMBER}.", [f"#{NUMBER}"]
    kept = cited(run, open_corpus(parts.settings.data_dir))
    assert [c.key for c in kept] == [f"issue:{NUMBER}"]
    watches.record(parts.conn, run, kept, parts.settings.knowledge.watch_seconds)
    return run


def _delivered(api: GitHubAPI, action: str, **state: str) -> str:
    issue = api.repo.edit_issue(NUMBER, **state)
    return github_jobs.apply_event(
        "issues", sent_by(payload(f"issues-{action}", api.repo, action=action, issue=issue), "maria")
    )


def test_a_close_and_a_reopening_through_the_webhook_each_tell_the_thread_that_cited_the_other_state(
    api: GitHubAPI, parts: Parts
) -> None:
    api.repo.edit_issue(NUMBER, state="open")
    assert run_sync(api, parts.settings).complete
    _answered(parts, "1.1")  # cited while open
    done = _delivered(api, "closed", state="closed", state_reason="completed")
    assert done.startswith("applied issues.closed") and "1 thread(s) told of a changed source" in done
    [(thread, note)] = parts.platform.posted
    assert thread == "1.1" and note.startswith(f"An issue this answer cited is now closed: #{NUMBER}")
    assert "told of a changed source" not in _delivered(api, "closed", state="closed", state_reason="completed")

    followed = _answered(parts, "2.2")  # cited while closed, by a thread that follows it
    place = subs.place_of(followed)
    assert place is not None
    subs.subscribe(parts.conn, subs.tracker_name(parts.settings), NUMBER, place, followed.id, "linked")
    done = _delivered(api, "reopened", state="open", state_reason="reopened")
    assert "1 thread(s) told of a changed source" in done
    assert [t for t, _ in parts.platform.posted] == ["1.1", "2.2"]  # not 1.1 again: once per thread and source
    assert parts.platform.posted[1][1].startswith(f"An issue this answer cited is now open: #{NUMBER}")
