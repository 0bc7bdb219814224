"""Close-the-loop notices at the port: once per (issue, event, thread); a platform outage fails the job for
RQ to retry and only what was not posted is tried again; a channel Atlas left is logged and unsubscribed."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
import redis

from workers.chat import ThreadNote
from workers.errors import NoticeUndelivered
from workers.followup import notices
from workers.followup import subscriptions as subs
from workers.runs.post_once import KeyedSlot
from workers.runs.state import Origin

A = Origin(kind="slack", team="T1", channel="C1", thread_ts="1.1")
B = Origin(kind="discord", team="G1", channel="77", thread_ts="77")


@dataclass
class Platform:
    """The chat port as a notice sees it: what each thread answers, in order, and what was posted."""

    answers: dict[str, list[ThreadNote | Exception]]
    posted: list[tuple[str, str]] = field(default_factory=list)

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        answer = self.answers[place.channel or ""].pop(0)
        if isinstance(answer, Exception):
            raise answer
        if answer == "posted":
            self.posted.append((place.channel or "", text))
            if once is not None:  # the port records where a note posted once went (workers/runs/post_once.py)
                once.record(place.channel or "", str(len(self.posted)))
        return answer


@dataclass
class Parts:
    conn: redis.Redis
    platform: Platform
    settings: Any = field(default_factory=lambda: SimpleNamespace(github=None))

    def platform_for(self, kind: str) -> Platform:
        return self.platform


def _closed(number: int) -> dict[str, Any]:
    return {
        "issue": {
            "number": number,
            "title": "Lease <!channel> lost",
            "state_reason": "duplicate",
            "closed_at": "2026-12-01T10:00:00Z",
            "html_url": f"https://github.com/acme/rocket/issues/{number}",
        },
        "sender": {"login": "maria"},
    }


def test_an_outage_is_retried_only_for_what_was_not_posted_and_a_left_channel_is_dropped(
    redis_conn: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    subs.subscribe(redis_conn, "demo", 12, A, "run-a", "filed")
    subs.subscribe(redis_conn, "demo", 12, B, "run-b", "linked")
    platform = Platform({"C1": [ConnectionError("slack down"), "posted"], "77": ["posted"]})
    rt = Parts(redis_conn, platform)
    with pytest.raises(NoticeUndelivered):
        notices.on_event(rt, "issues", "closed", _closed(12), duplicate_of=3)  # type: ignore[arg-type]
    assert [c for c, _ in platform.posted] == ["77"]
    notices.on_event(rt, "issues", "closed", _closed(12), duplicate_of=3)  # type: ignore[arg-type]  # RQ's retry
    notices.on_event(rt, "issues", "closed", _closed(12), duplicate_of=3)  # type: ignore[arg-type]  # a redelivery
    assert sorted(c for c, _ in platform.posted) == ["77", "C1"]
    assert platform.posted[0][1] == (
        "#12 \u201cLease <!channel> lost\u201d was closed by @maria as a duplicate of #3: "
        "https://github.com/acme/rocket/issues/12"
    )

    platform.answers = {"C1": ["gone"], "77": ["posted"]}
    with caplog.at_level(logging.WARNING, logger="atlas.followup"):
        told = notices.on_event(
            rt,
            "release",
            "published",
            {
                "release": {
                    "id": 5,
                    "name": "v2.3.1",
                    "body": "Fixes #12 (and #1)",  # type: ignore[arg-type]
                    "html_url": "https://github.com/acme/rocket/releases/5",
                }
            },
        )
    assert "1 thread(s) told of release v2.3.1" in told
    assert (
        "Atlas is no longer in the channel of thread slack:T1:C1:1.1 (run run-a); subscription dropped" in caplog.text
    )
    assert [s.place for s in subs.for_issue(redis_conn, "demo", 12)] == [B] and subs.for_thread(redis_conn, A) == []


def test_each_platform_says_gone_for_a_channel_atlas_was_removed_from(redis_conn: redis.Redis) -> None:
    from slack_sdk import WebClient

    from bot.discord.rest import DiscordREST
    from bot.discord.surface import DiscordReporter
    from bot.slack.surface import SlackReporter
    from tests.standins.discord_api import DiscordAPI
    from tests.standins.slack_api import SlackAPI
    from workers.runs.store import RunStore

    with DiscordAPI() as discord, SlackAPI() as slack:
        env = discord.env()
        rest = DiscordREST(env["DISCORD_BOT_TOKEN"], env["DISCORD_API_URL"])
        on_discord = DiscordReporter(rest, RunStore(redis_conn))
        client = WebClient(token=slack.token, base_url=slack.base_url)
        on_slack = SlackReporter(client, client, RunStore(redis_conn))
        assert (
            on_discord.thread_note(B, "Closed <@&1> #12") == "posted"
            and on_slack.thread_note(A, "Closed <!channel> #12") == "posted"
        )
        discord.removed.add("77")
        slack.removed.add("C1")
        assert on_discord.thread_note(B, "again") == "gone" and on_slack.thread_note(A, "again") == "gone"
    [posted] = discord.channel("77")
    assert posted["allowed_mentions"] == {"parse": []}
    [note] = [m for m in slack.messages.values() if m.get("thread_ts") == "1.1"]
    assert "<!channel>" not in note["text"]


def test_a_release_whose_generated_notes_list_pull_requests_by_url_tells_their_threads_and_only_this_repositorys(
    redis_conn: redis.Redis,
) -> None:
    from tests.standins.github_releases import generated_notes

    for number in (15, 16, 40, 7):
        subs.subscribe(redis_conn, "acme/rocket", number, A, f"run-{number}", "linked")
    body = generated_notes(
        "acme/rocket", [("Keep the lease on restart", "maria", 15), ("Docs: retries", "bob", 16)], "v2.3.0", "v2.3.1"
    )
    body += "\n* Same fix upstream in https://github.com/acme/rocket-fork/pull/40 and https://github.com/other/rocket/issues/7"
    platform = Platform({"C1": ["posted", "posted", "posted"]})
    rt = Parts(redis_conn, platform, SimpleNamespace(github=SimpleNamespace(repo="acme/rocket")))
    told = notices.on_event(
        rt,
        "release",
        "published",
        {
            "release": {
                "id": 9,
                "name": "v2.3.1",
                "body": body,  # type: ignore[arg-type]
                "html_url": "https://github.com/acme/rocket/releases/9",
            }
        },
    )
    assert "2 thread(s) told of release v2.3.1" in told
    assert [text.split(" ")[0] for _, text in platform.posted] == [
        "#15",
        "#16",
    ]  # not the fork's #40, not other/rocket's #7
    assert notices.mentioned(
        "See https://GitHub.com/Acme/Rocket/issues/3, #4 and https://github.com/acme/rocket/pull/3", "acme/rocket"
    ) == [3, 4]
