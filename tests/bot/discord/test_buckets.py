"""Discord's rate limits are per bucket (named in `X-RateLimit-Bucket`, possibly shared by several
routes) and per major parameter: the client learns the buckets and waits before a spent one, so
the stand-in, which limits as Discord does, never has to answer 429."""

from __future__ import annotations

import pytest

from bot.discord.rest import DiscordREST
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_buckets import BUCKET_SIZE
from tests.standins.discord_fixtures import discord_api  # noqa: F401

CHANNEL, OTHER = "1300000000000000001", "1300000000000000002"


@pytest.fixture
def limited(discord_api: DiscordAPI) -> DiscordAPI:  # noqa: F811
    discord_api.buckets.window = 0.4  # five requests per bucket per 0.4 s
    return discord_api


def test_edits_and_deletes_share_a_bucket_and_the_client_waits_instead_of_hitting_429(limited: DiscordAPI) -> None:
    waits: list[float] = []
    rest = DiscordREST(
        limited.token, limited.base_url, sleep=lambda s: (waits.append(s), __import__("time").sleep(s)) and None
    )
    first, second = (rest.create_message(OTHER, {"content": x})["id"] for x in "ab")
    rest.edit_message(OTHER, first, {"content": "edited"})
    rest.request("DELETE", f"/channels/{OTHER}/messages/{second}")  # Discord names both routes' bucket: the same one
    messages = [rest.create_message(CHANNEL, {"content": str(i)})["id"] for i in range(BUCKET_SIZE)]
    for message_id in messages:
        rest.edit_message(CHANNEL, message_id, {"content": "edited"})  # spends the shared bucket of this channel
    rest.request(
        "DELETE", f"/channels/{CHANNEL}/messages/{messages[0]}"
    )  # same bucket, same channel: Discord would answer 429, so wait
    assert [r.status for r in limited.requests if r.status == 429] == []
    assert waits and 0 < max(waits) <= 0.4
    assert len(limited.channel(CHANNEL)) == BUCKET_SIZE - 1


def test_a_bucket_429_is_waited_out_with_its_retry_after_and_scope(
    limited: DiscordAPI, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    waits: list[float] = []
    rest = DiscordREST(
        limited.token, limited.base_url, sleep=lambda s: (waits.append(s), __import__("time").sleep(s)) and None
    )
    other = DiscordREST(limited.token, limited.base_url)  # another process: knows nothing of the bucket
    for i in range(BUCKET_SIZE):
        other.create_message(CHANNEL, {"content": str(i)})
    with caplog.at_level(logging.INFO, logger="atlas.discord.rest"):
        rest.create_message(CHANNEL, {"content": "after the wait"})
    [refused] = [r for r in limited.requests if r.status == 429]
    assert refused.path == f"/channels/{CHANNEL}/messages" and waits and waits[0] <= 0.4
    assert "(user)" in caplog.text and limited.channel(CHANNEL)[-1]["content"] == "after the wait"
