"""The Undo of a triage card on Discord and the demo tracker (issue 36 item 5): after Atlas labelled an issue, the
card's Undo (an approver's click only, once however often it is clicked) removes the labels through the journal and
says so in a comment; the card then shows who undid it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from atlas.cli import main as cli
from bot.discord.views.components import APPROVE_PREFIX
from datasets import tracker_journal
from tests.bot.discord.test_e2e import MAINTAINER, OUTSIDER, ROLE, serving_discord
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api  # noqa: F401
from tests.support.processes import wait_for, worker_process
from tools.demo_tracker import SqliteTracker
from workers.triage import outcomes


def _buttons(message: dict[str, object]) -> list[str]:
    return [str(b["custom_id"]) for row in message.get("components") or [] for b in row["components"]]  # type: ignore[union-attr, index]


def test_undo_on_discord_removes_the_labels_atlas_added_once(
    atlas_env: dict[str, str],
    discord_api: DiscordAPI,
    redis_conn: redis.Redis,
    tmp_path: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.support.tools_dataset import make_dataset

    data = make_dataset(tmp_path / "data")
    with (data / "issues" / "issues.jsonl").open("a") as issues:  # a new issue in the demo data
        issues.write(
            json.dumps(
                {
                    "author": "newcomer",
                    "created_at": "2026-11-30T09:00:00Z",
                    "closed_at": None,
                    "duplicate_of": None,
                    "comments": [],
                    "id": 10,
                    "title": "Cron job runs twice when the clocks change (DST)",
                    "body": "A 02:30 cron job ran twice at the DST change.",
                    "state": "open",
                    "labels": [],
                }
            )
            + "\n"
        )
    env = {
        **atlas_env,
        **discord_api.env(),
        "DISCORD_PUBLIC_KEY": di.PUBLIC_KEY,
        "ATLAS_DISCORD_APPROVER_ROLE": ROLE,
        "ATLAS_DATA": str(data),
        "ATLAS_DISCORD_TRIAGE_CHANNEL": di.CHANNEL_ID,
        "ATLAS_SEMANTIC": "off",
        "ATLAS_TRIAGE_ACTIONS": "duplicates=off,labels=draft,reply=off",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert cli.main(["triage", "10", "--post"]) == 0
    journal = tracker_journal.journal_path(data, Path(env["ATLAS_HOME"]))
    with serving_discord(env, tmp_path, discord_api) as serve, worker_process(env, "undo-discord"):
        [card] = wait_for(
            lambda: [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")], what="the card", timeout=90
        )
        [approve] = [b for b in _buttons(card) if b.startswith(APPROVE_PREFIX) and b.endswith(".triage-labels")]
        assert serve.send(di.click(approve, MAINTAINER, message=card)).body == {"type": 6}
        offered = wait_for(
            lambda: next(
                (
                    m
                    for m in discord_api.channel(di.CHANNEL_ID)
                    if m["id"] == card["id"] and any(b.endswith(".triage-undo") for b in _buttons(m))
                ),
                None,
            ),
            what="the Undo",
            timeout=90,
        )
        assert "Undo what Atlas did: remove" in offered["content"]
        [undo] = _buttons(offered)
        assert undo.startswith(APPROVE_PREFIX)
        serve.send(di.click(undo, OUTSIDER, message=offered))  # not in the approver role: refused
        assert [e.kind for e in tracker_journal.entries(journal)] == ["add_labels"]
        assert serve.send(di.click(undo, MAINTAINER, message=offered)).body == {"type": 6}
        serve.send(di.click(undo, MAINTAINER, message=offered))  # a double click
        edited = wait_for(
            lambda: next(
                (
                    m
                    for m in discord_api.channel(di.CHANNEL_ID)
                    if m["id"] == card["id"] and "Undone by maintainer." in m["content"]
                ),
                None,
            ),
            what="the card undone",
            timeout=90,
        )
        assert _buttons(edited) == []
        discord_api.assert_valid()
    writes = tracker_journal.entries(journal)
    assert [e.kind for e in writes] == ["add_labels", "remove_labels", "comment"]
    assert writes[1].data["labels"] == writes[0].data["labels"]
    assert "undid Atlas's triage" in str(writes[2].data["body"]) and "approved by maintainer on Discord" in str(
        writes[2].data["body"]
    )
    issue = SqliteTracker(data, home=Path(env["ATLAS_HOME"])).issue(10)
    assert issue is not None and issue.labels == ()
    assert {o.value for o in outcomes.load_all(redis_conn, "demo") if o.source == "undo"} == set(
        writes[0].data["labels"]
    )
