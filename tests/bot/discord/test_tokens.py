"""A `/atlas ask` whose interaction token no longer works (the ack reached Discord after 3 seconds, or
15 minutes have passed) still gets its answer, as bot messages in the channel, exactly once across
retries; and no interaction token ever reaches a log record."""

from __future__ import annotations

import logging

import pytest

from bot.discord.intake import run_id_for
from bot.discord.rest import DiscordREST
from bot.discord.surface import DiscordReporter
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import RunningEndpoint, discord_api, endpoint  # noqa: F401
from workers.agent.events import Finished, StepStarted
from workers.runs.state import RunState, StepRecord
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface

ASKER = di.member("1500000000000000021", name="asker")


def _asked(endpoint: RunningEndpoint, **send: float) -> tuple[dict[str, object], RunState]:  # noqa: F811
    payload = di.ask("What does ORB-1202 mean?", ASKER)
    assert endpoint.send.send(payload, **send).body == {"type": 5}
    return payload, RunStore(endpoint.conn).load(run_id_for("interaction", str(payload["id"])))


def _answer(endpoint: RunningEndpoint, api: DiscordAPI, run_id: str) -> None:  # noqa: F811
    """What the worker does for the run (a fresh reporter each time, as each RQ try has)."""
    store = RunStore(endpoint.conn)
    run = store.load(run_id)
    reporter = DiscordReporter(DiscordREST(api.token, api.base_url, sleep=lambda s: None), store)
    reporter.event(run, StepStarted(1))
    run.status, run.answer, run.stop_reason, run.steps = (
        "done",
        "ORB-1202 is a permanent error.",
        "done",
        [StepRecord(index=1)],
    )
    reporter.event(run, Finished())


def _channel_answers(api: DiscordAPI) -> list[dict[str, object]]:  # noqa: F811
    return [m for m in api.channel(di.CHANNEL_ID) if "stop: " in str(m.get("content"))]


@pytest.mark.parametrize("how", ["late ack", "expired"])
def test_a_dead_token_posts_the_answer_in_the_channel_once_across_retries(
    endpoint: RunningEndpoint,
    discord_api: DiscordAPI,
    how: str,
    caplog: pytest.LogCaptureFixture,  # noqa: F811
) -> None:
    caplog.set_level(logging.DEBUG)
    payload, run = _asked(endpoint, ack_late_by=4.0 if how == "late ack" else 0.0)
    if how == "expired":
        discord_api.advance(15 * 60 + 1)  # Atlas's own clock says 14 minutes are not over: Discord decides
    _answer(endpoint, discord_api, run.id)
    _answer(endpoint, discord_api, run.id)  # RQ's retry of the same job

    [answer] = _channel_answers(discord_api)
    assert "ORB-1202" in str(answer["content"]) and answer["allowed_mentions"] == {"parse": []}
    assert not discord_api.channel(f"webhook:{payload['token']}")  # nothing reached the dead webhook
    assert any("Working on it" in str(m.get("content")) for m in discord_api.channel(di.CHANNEL_ID))
    stored = DiscordSurface.of(RunStore(endpoint.conn).load(run.id))
    assert stored.interaction is not None and stored.interaction.token == ""  # the dead token is not kept
    assert [r.status for r in discord_api.requests if r.path.startswith("/webhooks/")][:1] == [404]
    _no_token_logged(caplog, str(payload["token"]))
    discord_api.assert_valid()


def test_a_live_token_answers_through_the_webhook_and_a_rate_limit_there_logs_no_token(
    endpoint: RunningEndpoint,
    discord_api: DiscordAPI,
    caplog: pytest.LogCaptureFixture,  # noqa: F811
) -> None:
    caplog.set_level(logging.DEBUG)
    payload, run = _asked(endpoint)
    discord_api.retry_after = 0.01
    discord_api.rate_limit(r"^/webhooks/", times=2)
    _answer(endpoint, discord_api, run.id)
    assert [m for m in discord_api.channel(f"webhook:{payload['token']}") if "stop: " in str(m.get("content"))]
    assert not _channel_answers(discord_api)
    assert "rate limited on" in caplog.text
    _no_token_logged(caplog, str(payload["token"]))


def _no_token_logged(caplog: pytest.LogCaptureFixture, token: str) -> None:
    assert caplog.records
    for record in caplog.records:
        text = " ".join(str(x) for x in (record.getMessage(), record.args, record.exc_text or "", record.name))
        assert token not in text, record.getMessage()
