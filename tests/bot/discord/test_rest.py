"""Atlas's Discord REST client against the stand-in: rate limits, retries, mentions off, registration."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from atlas.settings import Settings
from bot.discord import commands
from bot.discord.rest import DiscordError, DiscordREST, Limits, route
from tests.standins.discord_api import APPLICATION_ID, GUILD_ID, DiscordAPI
from tests.standins.discord_fixtures import discord_api  # noqa: F401
from tests.support.processes import atlas_command


class Sleeps:
    """Records the waits the client asks for (and really waits them: they are milliseconds here)."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        import time

        self.waits.append(seconds)
        time.sleep(seconds)


@pytest.fixture
def client(discord_api: DiscordAPI) -> Iterator[tuple[DiscordREST, Sleeps]]:  # noqa: F811
    sleeps = Sleeps()
    yield DiscordREST(discord_api.token, discord_api.base_url, sleep=sleeps), sleeps


def test_routes_fold_ids_into_a_template_and_keep_the_major_parameter_apart() -> None:
    assert route("PATCH", "/channels/123456/messages/987654").template == "PATCH /channels/:id/messages/:id"
    assert route("PATCH", "/channels/123456/messages/987654").major == "channel 123456"
    hook = route("POST", "/webhooks/1/tok?wait=true")
    assert (
        hook.template == "POST /webhooks/:id/:token" and hook.major.startswith("webhook 1/") and "tok" not in hook.major
    )
    assert (
        route("POST", "/channels/1234567/messages/7654321/threads").template
        == "POST /channels/:id/messages/:id/threads"
    )


def test_a_429_waits_retry_after_and_retries_once_and_every_message_turns_mentions_off(
    client: tuple[DiscordREST, Sleeps],
    discord_api: DiscordAPI,  # noqa: F811
) -> None:
    rest, sleeps = client
    discord_api.retry_after = 0.2
    discord_api.rate_limit(r"/channels/\d+/messages$", times=1)
    posted = rest.create_message("1300000000000000001", {"content": "@everyone hello"})
    assert [r.status for r in discord_api.to("POST", "/messages$")] == [429, 200]
    assert 0.2 in sleeps.waits
    assert posted["allowed_mentions"] == {"parse": []}
    assert len(discord_api.channel("1300000000000000001")) == 1


def test_the_global_limit_holds_back_every_route(client: tuple[DiscordREST, Sleeps], discord_api: DiscordAPI) -> None:  # noqa: F811
    rest, sleeps = client
    discord_api.retry_after = 0.15
    discord_api.global_limited = 1
    rest.create_message("1300000000000000001", {"content": "a"})
    assert rest.limits.global_until > 0 and 0.15 in sleeps.waits


def test_an_exhausted_bucket_waits_for_its_reset_before_the_next_request() -> None:
    now = [100.0]
    limits = Limits()
    limits.update(
        route("POST", "/channels/1/messages"), {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "1.5"}, now[0]
    )
    assert limits.wait_time(route("POST", "/channels/1/messages"), now[0]) == pytest.approx(1.5)
    assert limits.wait_time(route("POST", "/channels/2/messages"), now[0]) == 0.0


def test_a_create_is_not_repeated_after_a_server_error_but_an_edit_is(discord_api: DiscordAPI) -> None:  # noqa: F811
    rest = DiscordREST(discord_api.token, discord_api.base_url, sleep=lambda s: None)
    original = discord_api._apply

    failures = {"n": 0}

    def flaky(method, path, body):  # noqa: ANN001, ANN202
        if failures["n"] < 1:
            failures["n"] += 1
            return 502, {"message": "bad gateway", "code": 0}
        return original(method, path, body)

    discord_api._apply = flaky  # type: ignore[method-assign]
    with pytest.raises(DiscordError) as refused:
        rest.create_message("1300000000000000001", {"content": "once"})
    assert refused.value.status == 502 and len(discord_api.to("POST", "/messages$")) == 1
    posted = rest.create_message("1300000000000000001", {"content": "posted"})  # no failure planned now
    failures["n"] = 0
    rest.edit_message("1300000000000000001", posted["id"], {"content": "edited"})
    assert [r.status for r in discord_api.to("PATCH", "/messages/")] == [502, 200]


def test_register_bulk_overwrites_the_commands_globally_or_in_one_guild_idempotently(
    discord_api: DiscordAPI,
    atlas_env: dict[str, str],  # noqa: F811
) -> None:
    env = {**atlas_env, **discord_api.env(), "ATLAS_SLASH_COMMAND": "/orbit"}
    for _ in range(2):
        done = atlas_command("discord", "register", env=env, timeout=60)
        assert done.returncode == 0, done.stderr
    assert [c["name"] for c in discord_api.commands["global"]] == ["atlas", "orbit"]
    assert len(discord_api.to("PUT", f"/applications/{APPLICATION_ID}/commands$")) == 2
    done = atlas_command("discord", "register", "--guild", GUILD_ID, env=env, timeout=60)
    assert done.returncode == 0 and f"in guild {GUILD_ID}" in done.stdout
    assert [c["name"] for c in discord_api.commands[GUILD_ID]] == ["atlas", "orbit"]
    discord_api.assert_valid()


def test_lookup_options_become_the_text_the_slack_command_parses() -> None:
    assert (
        commands.lookup_text(
            [
                {
                    "name": "search",
                    "options": [{"name": "words", "value": "redis timeout"}, {"name": "state", "value": "open"}],
                }
            ]
        )
        == "search redis timeout open"
    )
    assert commands.lookup_text([{"name": "issue", "options": [{"name": "number", "value": 42}]}]) == "issue 42"
    assert commands.lookup_text([]) == "help"
    assert Settings(slash_command="/Orbit").lookup_command == "orbit"


def test_the_stand_in_refuses_a_body_discord_would_refuse(
    client: tuple[DiscordREST, Sleeps], discord_api: DiscordAPI
) -> None:  # noqa: F811
    rest, _ = client  # content over 2,000 characters: tests/bot/discord/test_limits.py (the client clips it)
    if not discord_api.spec_checked:
        pytest.skip(discord_api.spec_missing_reason or "no spec")
    with pytest.raises(DiscordError):
        rest.create_message(
            "1300000000000000001", {"content": "ok", "components": [{"type": 1, "components": [{"type": 2}]}]}
        )
    assert any("components" in p for p in discord_api.problems)


@pytest.mark.parametrize("started", [False, True], ids=["not-started", "started-then-the-answer-lost"])
def test_a_thread_start_is_tried_again_after_a_server_error(discord_api: DiscordAPI, started: bool) -> None:  # noqa: F811
    """A message has one thread: a second start is safe, and refused with 160004 when the first had started it (the
    caller then uses the message's id); before, a dropped connection sent the answer into the channel instead."""
    rest = DiscordREST(discord_api.token, discord_api.base_url, sleep=lambda s: None)
    original = discord_api._apply
    failures = {"n": 0}

    def flaky(method, path, body):  # noqa: ANN001, ANN202
        if path.endswith("/threads") and failures["n"] < 1:
            failures["n"] += 1
            if started:
                original(method, path, body)
            return 502, {"message": "bad gateway", "code": 0}
        return original(method, path, body)

    discord_api._apply = flaky  # type: ignore[method-assign]
    asked = rest.create_message("1300000000000000001", {"content": "a question"})
    if started:
        with pytest.raises(DiscordError) as exists:
            rest.start_thread("1300000000000000001", asked["id"], "a question")
        assert exists.value.code == 160004
    else:
        assert rest.start_thread("1300000000000000001", asked["id"], "a question")["id"] == asked["id"]
    assert [r.status for r in discord_api.to("POST", "/threads$")] == [502, 400 if started else 201]
