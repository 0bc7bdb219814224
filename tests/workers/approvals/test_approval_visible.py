"""The card shows exactly what will run (issue 22, item 16): all of a comment, on every platform, and
every invisible or direction-changing character shown as its code point and counted, in titles too.

Cards are posted through the real clients to the stand-ins, which refuse what Slack and Discord refuse
(Slack: a block's text over its limit, via slack_sdk; Discord: content over 2,000 characters, embeds over
4,096 / 6,000 characters).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis
from slack_sdk import WebClient

from bot.discord.surface import DiscordReporter
from bot.discord.views.card import card_text
from bot.slack import cards as approval_cards
from bot.slack.views.approval import describe
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.slack_api import TEAM, SlackAPI
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.tools_dataset import make_dataset
from tools.tracker import IssueRef
from workers.approvals import records as approvals
from workers.messages.approval import CardView
from workers.runs.state import Origin, PendingCall, RunState
from workers.runs.store import RunStore

HIDDEN = "Fixed\u200b in 3.1.2\u2060.\ufeff See\u202e \U000e0041\U000e0042 docs."  # 6 hidden characters
SHOWN = "Fixed<U+200B> in 3.1.2<U+2060>.<U+FEFF> See<U+202E> <U+E0041><U+E0042> docs."
LONG = "".join(
    f"Line {i}: the lease is renewed every heartbeat_seconds.\n" for i in range(70)
)  # about 3,900 characters
TITLE = IssueRef(3, "Docs:\u200b cron syntax", "open", ("docs",), None)


def _paused(conn: redis.Redis, kind: str, body: str) -> tuple[RunState, PendingCall]:
    origin = (
        Origin(kind="slack", user="U0ASKER", channel="C0TRIAGE", thread_ts="1.0", message_ts="1.0", team=TEAM)
        if kind == "slack"
        else Origin(kind="discord", user="1500000000000000001", channel=di.CHANNEL_ID, team=di.GUILD_ID)
    )
    run = RunState(question="comment on #3", status="awaiting_approval", origin=origin)
    call = PendingCall(
        pending_id=f"{run.id}.call_0",
        call_id="call_0",
        name="post_comment",
        arguments=json.dumps({"issue_id": 3, "body": body}),
        step=1,
    )
    run.pending = [call]
    RunStore(conn).save(run)
    approvals.open_step(conn, run, run.pending, 3600)
    return run, call


def _slack_card_text(api: SlackAPI) -> str:
    (posted,) = [c for c in api.calls_to("chat.postMessage") if c.reply.get("ok")]
    return "".join(
        e.get("text", "")
        for b in posted.args["blocks"]
        if b["type"] == "rich_text"
        for el in b["elements"]
        if el["type"] == "rich_text_preformatted"
        for e in el["elements"]
    )


@pytest.mark.parametrize("body", [LONG, HIDDEN], ids=["long", "hidden"])
def test_a_slack_card_shows_the_whole_comment_with_hidden_characters_shown(
    body: str,
    slack_api: SlackAPI,  # noqa: F811
    redis_conn: redis.Redis,
) -> None:
    run, call = _paused(redis_conn, "slack", body)
    client = WebClient(token=slack_api.token, base_url=slack_api.base_url)
    approval_cards.post(client, run, run.pending, conn=redis_conn, tracker=None)
    assert _slack_card_text(slack_api) == (SHOWN if body == HIDDEN else body)
    (posted,) = slack_api.calls_to("chat.postMessage")
    flagged = json.dumps(posted.args["blocks"])
    assert ("6 invisible or direction-changing characters" in flagged) == (body == HIDDEN)


def test_a_long_slack_comment_is_split_into_blocks_slack_takes() -> None:
    body = "x" * 3999 + "\u200b" * 100  # 3,999 + 100 x 8 characters once shown
    card = CardView("p.c", "post_comment", {"issue_id": 3, "body": body}, None, None, "", None, 0)
    texts = [
        e["text"]
        for b in describe(card)
        if b["type"] == "rich_text"
        for el in b["elements"]
        if el["type"] == "rich_text_preformatted"
        for e in el["elements"]
    ]
    assert "".join(texts) == "x" * 3999 + "<U+200B>" * 100 and all(len(t) <= 3000 for t in texts)


def test_a_hidden_character_in_an_issue_title_is_shown_and_counted_on_both_platforms() -> None:
    card = CardView("p.c", "add_labels", {"issue_id": 3, "labels": ["bug"]}, TITLE, None, "", None, 0)
    slack = json.dumps(describe(card), ensure_ascii=False)
    assert "Docs:&lt;U+200B&gt; cron syntax" in slack and "\u200b" not in slack  # Slack shows &lt; as <
    assert "1 invisible or direction-changing character*" in slack
    discord = card_text(card)
    assert "Docs\\:<U+200B> cron syntax" in discord  # the colon escaped for Discord's Markdown
    assert "\u200b" not in discord and "1 invisible or direction-changing character**" in discord


@pytest.mark.parametrize("body", [LONG, HIDDEN], ids=["long", "hidden"])
def test_a_discord_card_shows_the_whole_comment_with_hidden_characters_shown(
    body: str,
    discord_api: DiscordAPI,  # noqa: F811
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    settings = discord_settings(discord_api, "redis://unused", tmp_path / "home", make_dataset(tmp_path / "data"))
    reporter = DiscordReporter.for_settings(settings, RunStore(redis_conn))
    run, call = _paused(redis_conn, "discord", body)
    (message_id,) = reporter.post_cards(run, run.pending)
    (card,) = [m for m in discord_api.channel(di.CHANNEL_ID) if m["id"] == message_id]
    shown = card["content"] + "".join(e.get("description", "") for e in card.get("embeds") or [])
    expected = SHOWN if body == HIDDEN else body
    assert expected in shown.replace("```\n", "").replace("\n```", "")
    assert "\u200b" not in shown and "\U000e0041" not in shown
    assert ("6 invisible or direction-changing characters" in card["content"]) == (body == HIDDEN)
    assert not discord_api.problems


@pytest.mark.parametrize("kind", ["slack", "discord"])
def test_a_hidden_character_in_the_calls_name_is_counted_on_both_platforms(
    kind: str,
    slack_api: SlackAPI,
    discord_api: DiscordAPI,  # noqa: F811
    redis_conn: redis.Redis,
    tmp_path: Path,
) -> None:
    """The same text is counted on every platform (workers/messages/approval.py shown_text): the call's name too,
    which an unknown tool's card shows in its title."""
    run, call = _paused(redis_conn, kind, "A plain comment.")
    run.pending = [call.model_copy(update={"name": "post_comment\u202e"})]
    if kind == "slack":
        approval_cards.post(
            WebClient(token=slack_api.token, base_url=slack_api.base_url),
            run,
            run.pending,
            conn=redis_conn,
            tracker=None,
        )
        (posted,) = slack_api.calls_to("chat.postMessage")
        shown = json.dumps(posted.args["blocks"], ensure_ascii=False)
    else:
        settings = discord_settings(discord_api, "redis://unused", tmp_path / "home", make_dataset(tmp_path / "data"))
        (message_id,) = DiscordReporter.for_settings(settings, RunStore(redis_conn)).post_cards(run, run.pending)
        (card,) = [m for m in discord_api.channel(di.CHANNEL_ID) if m["id"] == message_id]
        shown = card["content"]
        assert not discord_api.problems
    assert "<U+202E>" in shown.replace("&lt;", "<").replace("&gt;", ">")  # Slack's mrkdwn escapes its brackets
    assert "\u202e" not in shown  # shown as its code, never acting on the title
    assert "1 invisible or direction-changing character*" in shown
