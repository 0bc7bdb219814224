"""The Bolt app over HTTP with signed requests: the slash command's lookups and Share, and feedback buttons."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from atlas import tokens
from bot.lookups import Lookup, Lookups, parse
from bot.slack import wording
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import RunningBot, bot, slack_api, slack_settings, start_bot  # noqa: F401
from tests.standins.slack_interactions import block_action, command
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from workers.console_data import votes

FORBIDDEN = ("Traceback", "xoxb-", "Exception", "Error:")


# -- the slash command -------------------------------------------------------------------------


def _ephemeral(bot: RunningBot, text: str) -> dict:
    reply = bot.send.form(command(text))
    assert reply.status == 200
    body = reply.json()
    assert body["response_type"] == "ephemeral"
    assert not any(word in reply.body for word in FORBIDDEN if word != "Error:")
    return body


def _text(body: dict) -> str:
    return json.dumps(body.get("blocks") or []) + body.get("text", "")


def _share_value(body: dict) -> str | None:
    for block in body.get("blocks") or []:
        for element in block.get("elements") or []:
            if element.get("action_id") == "atlas_share":
                return element["value"]
    return None


@pytest.mark.parametrize("text", ["", "help", "  HELP  "])
def test_help_shows_the_usage(bot: RunningBot, text: str) -> None:
    body = _ephemeral(bot, text)
    assert "/orbit issue <number>" in _text(body) and _share_value(body) is None


def test_issue_lookup(bot: RunningBot) -> None:
    body = _ephemeral(bot, "issue #4")
    assert "PermanentError not retried" in _text(body) and "Issue #4" in _text(body)
    assert _share_value(body) == "issue 4"


def test_the_first_lookup_has_nothing_left_to_load(tmp_path: Path) -> None:
    """Bolt waits 3 s for the command's ack and the lookup runs inside it: the tokenizer's ranks (the tool
    results' cut), seconds to parse on a loaded machine, are loaded with the corpus, not by the first command."""
    tokens.encoding.cache_clear()
    lookups = Lookups.open(make_dataset(tmp_path / "data"), tmp_path / "home")
    loaded = tokens.encoding.cache_info()
    assert loaded.currsize == 1
    for text in ("issue 4", "search ORB-1402", "docs lease_seconds"):
        lookup = parse(text)
        assert isinstance(lookup, Lookup) and lookups.run(lookup).ok
    assert tokens.encoding.cache_info().misses == loaded.misses  # nothing loaded in a command's ack


def test_issue_lookup_of_a_missing_issue_says_so_without_a_share_button(bot: RunningBot) -> None:
    body = _ephemeral(bot, "issue 999")
    assert "999" in _text(body) and _share_value(body) is None


def test_search_with_state(bot: RunningBot) -> None:
    body = _ephemeral(bot, "search ORB-1402 open")
    assert "#3" in _text(body) and "(open)" in _text(body)
    assert _share_value(body) == "search ORB-1402 open"


def test_docs_search(bot: RunningBot) -> None:
    body = _ephemeral(bot, "docs lease_seconds")
    assert "leases-and-heartbeats" in _text(body)
    assert _share_value(body) == "docs lease_seconds"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("issue", "`issue` needs an issue number"),
        ("issue forty-two", "`issue` needs an issue number"),
        ("issue 4 5", "`issue` needs an issue number"),
        ("search", "`search` needs some words"),
        ("search closed", "`search` needs some words"),
        ("docs", "`docs` needs some words"),
        ("frobnicate the thing", "I don't know `frobnicate`"),
        ("search " + "word " * 100, "too long"),
    ],
)
def test_bad_input_answers_with_what_was_wrong_and_the_usage(bot: RunningBot, text: str, problem: str) -> None:
    body = _ephemeral(bot, text)
    assert problem in _text(body) and "/orbit docs <words>" in _text(body)


def test_issue_numbers_become_links_when_a_tracker_url_is_configured(
    slack_api: SlackAPI, redis_url: str, tmp_path: Path
) -> None:  # noqa: F811
    settings = slack_settings(
        slack_api,
        redis_url,
        tmp_path / "home",
        data_dir=make_dataset(tmp_path / "data"),
        issues_base_url="https://git.example/orbit/issues",
    )
    running, server = start_bot(settings, slack_api)
    try:
        body = running.send.form(command("search ORB-1402")).json()
        assert "<https://git.example/orbit/issues/3|#3>" in _text(body)
    finally:
        server.close()


def test_a_failing_lookup_answers_a_short_note_not_a_trace(bot: RunningBot, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(lookup):  # noqa: ANN001
        raise RuntimeError("db file /secret/path locked; token xoxb-123")

    monkeypatch.setattr(bot.deps.lookups, "run", explode)
    reply = bot.send.form(command("issue 4"))
    assert reply.status == 200 and reply.json()["text"] == wording.LOOKUP_FAILED
    assert "xoxb" not in reply.body and "/secret" not in reply.body


def test_share_posts_the_lookup_in_the_channel_and_removes_the_ephemeral(bot: RunningBot) -> None:
    url = bot.api.response_url("share-1")
    reply = bot.send.interaction(block_action("atlas_share", "issue 4", response_url=url, ephemeral=True))
    assert reply.status == 200
    shared, removed = wait_for(
        lambda: len(bot.api.responses) == 2 and bot.api.responses, what="the shared message and the delete"
    )
    assert shared[0] == removed[0] == "share-1"
    payload = shared[1]  # first the message for everyone, on its own: not a delete
    assert (
        payload["response_type"] == "in_channel"
        and not payload.get("delete_original")
        and payload["replace_original"] is False
    )
    assert (
        removed[1]["delete_original"] is True and not removed[1].get("blocks") and not removed[1].get("text")
    )  # then the delete, alone
    text = json.dumps(payload["blocks"])
    assert "PermanentError not retried" in text and "Shared by <@U0ALICE>" in text and "atlas_share" not in text


def test_many_commands_at_once_are_all_answered(bot: RunningBot) -> None:
    with ThreadPoolExecutor(40) as pool:
        replies = list(pool.map(lambda n: bot.send.form(command(f"issue {1 + n % 9}")), range(80)))
    assert [r.status for r in replies] == [200] * 80
    assert all(r.json()["response_type"] == "ephemeral" for r in replies)


# -- feedback ----------------------------------------------------------------------------------


def test_feedback_is_a_toggle_per_run_and_user(bot: RunningBot, redis_conn: redis.Redis) -> None:
    run_id = "0123456789abcdef"

    def click(vote: str, expect: dict[str, str], user: str = "U0ALICE") -> None:
        notes = len(bot.api.ephemerals())
        payload = block_action("atlas_feedback", f"{run_id}:{vote}", user=user, action_type="feedback_buttons")
        assert bot.send.interaction(payload).status == 200
        wait_for(lambda: votes.votes(redis_conn, run_id) == expect, what=f"votes {expect}")
        wait_for(lambda: len(bot.api.ephemerals()) > notes, what="the note to the clicker")

    click("up", {"U0ALICE": "up"})
    click("up", {})  # the same vote again removes it
    click("down", {"U0ALICE": "down"})
    click("up", {"U0ALICE": "down", "U0BOB": "up"}, user="U0BOB")
    click("up", {"U0ALICE": "up", "U0BOB": "up"})  # the other vote switches
    assert bot.send.interaction(block_action("atlas_feedback", "not-a-run:sideways")).status == 200
    assert votes.votes(redis_conn, run_id) == {"U0ALICE": "up", "U0BOB": "up"}
    assert [(n["user"], n["text"]) for n in bot.api.ephemerals()] == [
        ("U0ALICE", wording.FEEDBACK_SAVED["up"]),
        ("U0ALICE", wording.FEEDBACK_SAVED[None]),
        ("U0ALICE", wording.FEEDBACK_SAVED["down"]),
        ("U0BOB", wording.FEEDBACK_SAVED["up"]),
        ("U0ALICE", wording.FEEDBACK_SAVED["up"]),
    ]


def test_toggle_is_one_vote_not_a_counter(redis_conn: redis.Redis) -> None:
    assert votes.toggle(redis_conn, "abcdef0123456789", "U1", "up") == "up"
    assert votes.toggle(redis_conn, "abcdef0123456789", "U1", "down") == "down"
    assert votes.toggle(redis_conn, "abcdef0123456789", "U1", "down") is None
    assert votes.votes(redis_conn, "abcdef0123456789") == {}
