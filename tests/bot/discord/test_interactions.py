"""The interactions endpoint in `atlas serve`'s web server: signatures, PING, commands, buttons."""

from __future__ import annotations

import json

import redis
from nacl.signing import SigningKey

from bot.discord.interactions import Interactions
from bot.discord.views.components import FEEDBACK_PREFIX, SHARE_PREFIX
from bot.lookups import Lookups
from tests.standins import discord_interactions as di
from tests.standins.discord_fixtures import RunningEndpoint, discord_api, endpoint  # noqa: F401
from workers.runs.store import RunStore

ADMIN = di.member("1500000000000000001", permissions=1 << 5, name="maintainer")
OUTSIDER = di.member("1500000000000000002", permissions=0, name="visitor")


def test_a_bad_or_missing_signature_is_refused_with_401_before_anything_else(endpoint: RunningEndpoint) -> None:  # noqa: F811
    assert endpoint.send.send(di.ping()).body == {"type": 1}
    wrong_key = SigningKey(bytes(range(1, 33)))
    assert endpoint.send.send(di.ping(), key=wrong_key).status == 401
    assert endpoint.send.send(di.ask("hi", ADMIN), tamper=True).status == 401
    assert not list(endpoint.conn.scan_iter("atlas:run:*"))  # nothing was recorded for the refused ask


def test_ask_is_deferred_queued_once_and_a_retried_delivery_starts_no_second_run(endpoint: RunningEndpoint) -> None:  # noqa: F811
    payload = di.ask("What does ORB-1202 mean?", ADMIN)
    first, again = endpoint.send.send(payload), endpoint.send.send(payload)
    assert first.body == {"type": 5} and again.body == {"type": 5}
    runs = [k for k in endpoint.conn.scan_iter("atlas:run:*") if k.count(b":") == 2]
    assert len(runs) == 1
    run = RunStore(endpoint.conn).load(runs[0].decode().rsplit(":", 1)[1])
    assert run.origin.kind == "discord" and run.question == "What does ORB-1202 mean?"
    assert run.surface.interaction.token == payload["token"]
    assert endpoint.conn.llen("rq:queue:atlas") == 1
    assert not endpoint.send.problems


def test_lookup_answers_at_once_ephemeral_with_a_share_button_that_posts_for_everyone(
    endpoint: RunningEndpoint,
) -> None:  # noqa: F811
    reply = endpoint.send.send(di.lookup("orbit", "issue", OUTSIDER, number=1)).body
    assert reply["type"] == 4 and reply["data"]["flags"] == 64
    assert reply["data"]["content"].startswith("**Issue \\#1**")
    [button] = reply["data"]["components"][0]["components"]
    assert button["custom_id"] == SHARE_PREFIX + "issue 1"
    shared = endpoint.send.send(di.click(button["custom_id"], OUTSIDER)).body
    assert shared["type"] == 4 and "flags" not in shared["data"] and "components" not in shared["data"]
    assert "Shared by <@1500000000000000002>" in shared["data"]["content"]
    assert shared["data"]["allowed_mentions"] == {"parse": []}
    usage = endpoint.send.send(di.lookup("orbit", "help", OUTSIDER)).body
    assert "/orbit issue <number>" in usage["data"]["content"]
    assert not endpoint.send.problems


def test_feedback_buttons_count_votes_and_a_second_click_removes_the_vote(endpoint: RunningEndpoint) -> None:  # noqa: F811
    custom_id = f"{FEEDBACK_PREFIX}{'ab' * 8}:up"
    first = endpoint.send.send(di.click(custom_id, ADMIN)).body
    assert first["type"] == 7
    assert first["data"]["components"][0]["components"][0]["label"] == "Helpful (1)"
    second = endpoint.send.send(di.click(custom_id, ADMIN)).body
    assert second["data"]["components"][0]["components"][0]["label"] == "Helpful"


def test_ask_while_redis_is_down_gets_an_ephemeral_note(endpoint: RunningEndpoint) -> None:  # noqa: F811
    down = redis.Redis.from_url("redis://127.0.0.1:1", socket_connect_timeout=0.2)  # nothing listens there
    handler = Interactions(endpoint.settings, down, Lookups(endpoint.settings.data_dir))
    reply = handler.handle(di.ask("hello?", ADMIN))
    assert reply["type"] == 4 and reply["data"]["flags"] == 64 and "can't take questions" in reply["data"]["content"]
    assert "Traceback" not in json.dumps(reply) and "Error" not in json.dumps(reply)


def test_a_lookup_atlas_cannot_run_says_what_was_wrong_before_the_usage(endpoint: RunningEndpoint) -> None:  # noqa: F811
    reply = endpoint.send.send(di.lookup("orbit", "issue", OUTSIDER, number=10**9 + 1)).body
    assert reply["type"] == 4 and reply["data"]["flags"] == 64
    content = reply["data"]["content"]
    assert content.startswith("`issue` needs an issue number, e.g. `/orbit issue 42`.")
    assert "/orbit issue <number>" in content and "components" not in reply["data"]


def test_a_button_atlas_does_not_know_gets_the_views_ephemeral_note(endpoint: RunningEndpoint) -> None:  # noqa: F811
    """Unknown custom ids (and a vote with no run in it) are told so in Discord's words, through the view."""
    from bot.discord.views.intake_notes import intake_note_text
    from workers.messages.intake_notes import UnknownCommand

    for custom_id in ("atlas_nothing_like_this:1", f"{FEEDBACK_PREFIX}:up"):
        reply = endpoint.send.send(di.click(custom_id, ADMIN)).body
        assert reply["type"] == 4 and reply["data"]["flags"] == 64
        assert reply["data"]["content"] == intake_note_text(UnknownCommand())
    assert not endpoint.send.problems
