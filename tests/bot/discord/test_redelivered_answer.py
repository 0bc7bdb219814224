"""A re-delivered answer (a retried job that wrote it anew) edits the messages already posted and deletes
those left over, once, as on Slack (bot/slack/answer.py): an answer of 3 messages re-delivered as 2
leaves 2, whether it was posted in the run's thread or through the `/atlas ask` webhook, and a leftover
someone already deleted (404, Unknown Message) is no error."""

from __future__ import annotations

import pytest

from bot.discord.intake import run_id_for
from bot.discord.rest import DiscordREST
from bot.discord.surface import DiscordReporter
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import RunningEndpoint, discord_api, endpoint  # noqa: F401
from workers.agent.events import Finished
from workers.runs.state import Origin, RunState, StepRecord
from workers.runs.store import RunStore
from workers.runs.surfaces import DiscordSurface

PARAGRAPH = "ORB-1202 is a permanent error: the job is not retried. " * 30  # about 1,700 characters: one message each
MESSAGE, CHANNEL = "1300000000000000902", "1300000000000000901"


def _answer(api: DiscordAPI, store: RunStore, run_id: str, paragraphs: int) -> None:  # noqa: F811
    """What a worker's job does at the end of the run (a fresh reporter, as each RQ try has)."""
    run = store.load(run_id)
    run.status, run.stop_reason, run.steps = "done", "done", [StepRecord(index=1)]
    run.answer = "\n\n".join(f"Part {i}. {PARAGRAPH}" for i in range(paragraphs))
    DiscordReporter(DiscordREST(api.token, api.base_url, sleep=lambda s: None), store).event(run, Finished())


def _where(api: DiscordAPI, endpoint: RunningEndpoint, how: str) -> tuple[str, str]:  # noqa: F811
    """A run asked by mention (it answers in the thread started from the message) or by `/atlas ask`
    (through the interaction's webhook): its id and where its messages are."""
    store = RunStore(endpoint.conn)
    if how == "thread":
        run = RunState(
            question="What does ORB-1202 mean?",
            origin=Origin(
                kind="discord", channel=CHANNEL, message_ts=MESSAGE, team=di.GUILD_ID, user="1500000000000000001"
            ),
        )
        store.save(run)
        return run.id, MESSAGE
    payload = di.ask("What does ORB-1202 mean?", di.member("1500000000000000021"))
    assert endpoint.send.send(payload).body == {"type": 5}
    return run_id_for("interaction", str(payload["id"])), f"webhook:{payload['token']}"


@pytest.mark.parametrize("how", ["thread", "webhook"])
@pytest.mark.parametrize("gone", [False, True], ids=["", "one-already-deleted"])
def test_an_answer_of_three_messages_redelivered_as_two_leaves_two(
    endpoint: RunningEndpoint,
    discord_api: DiscordAPI,
    how: str,
    gone: bool,  # noqa: F811
) -> None:
    store = RunStore(endpoint.conn)
    run_id, where = _where(discord_api, endpoint, how)
    _answer(discord_api, store, run_id, 3)
    first = [m["id"] for m in discord_api.channel(where)]
    assert len(first) == 3 and "stop: " in discord_api.channel(where)[-1]["content"]
    if gone:  # a moderator deleted the last one meanwhile
        [(message_id, _)] = DiscordSurface.of(store.load(run_id)).answer_ids[2:]
        if how == "thread":
            DiscordREST(discord_api.token, discord_api.base_url).request(
                "DELETE", f"/channels/{where}/messages/{message_id}"
            )
        else:
            token = where.removeprefix("webhook:")
            DiscordREST(None, discord_api.base_url).request(
                "DELETE", f"/webhooks/{di.APPLICATION_ID}/{token}/messages/{message_id}", auth=False
            )

    _answer(discord_api, store, run_id, 2)  # the retried job wrote it in two
    shown = discord_api.channel(where)
    assert [m["id"] for m in shown] == first[:2]  # edited in place; the third one is gone
    assert (
        shown[0]["content"].startswith("Part 0.")
        and "Part 1." in shown[1]["content"]
        and "stop: " in shown[1]["content"]
    )
    assert "Part 2." not in "".join(m["content"] for m in shown)
    assert DiscordSurface.of(store.load(run_id)).answer_ids == [
        (m, "channel" if how == "thread" else "webhook") for m in first[:2]
    ]

    deletes = len(discord_api.to("DELETE", "/messages/"))
    _answer(discord_api, store, run_id, 2)  # and again: nothing left to delete, nothing deleted twice
    assert (
        len(discord_api.to("DELETE", "/messages/")) == deletes
        and [m["id"] for m in discord_api.channel(where)] == first[:2]
    )
    discord_api.assert_valid()
