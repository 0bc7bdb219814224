"""The triage inbox on the demo tracker and Discord (issue 24): `atlas triage N --post` starts the issue's one
triage run, a real worker posts one card in the Discord triage channel, a signed click applies one action once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from atlas.cli import main as cli
from bot.discord.views.components import APPROVE_PREFIX
from datasets import tracker_journal
from tests.bot.discord.test_e2e import MAINTAINER, ROLE, serving_discord
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api  # noqa: F401
from tests.support.processes import wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.approvals import audit


def test_a_demo_issue_posted_for_triage_gets_one_discord_card_and_approve_labels_it_once(
    atlas_env: dict[str, str],
    discord_api: DiscordAPI,
    redis_conn: redis.Redis,
    tmp_path: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
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
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert cli.main(["triage", "10", "--post"]) == 0 and "queued" in capsys.readouterr().out
    assert cli.main(["triage", "10", "--post"]) == 0 and "already started" in capsys.readouterr().out
    with serving_discord(env, tmp_path, discord_api) as serve, worker_process(env, "inbox-discord"):
        [card] = wait_for(
            lambda: [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")], what="the card"
        )
        assert "\\#10 Cron job runs twice when the clocks change" in card["content"] and "Add labels" in card["content"]
        assert (
            "Close as duplicate of \\#1" in card["content"] and "`newcomer`" in card["content"]
        )  # the original, from the demo data
        buttons = [b["custom_id"] for row in card["components"] for b in row["components"]]
        [approve] = [b for b in buttons if b.startswith(APPROVE_PREFIX) and b.endswith(".triage-labels")]
        assert (
            tracker_journal.entries(tracker_journal.journal_path(data, Path(env["ATLAS_HOME"]))) == []
        )  # nothing before a click
        assert serve.send(di.click(approve, MAINTAINER, message=card)).body == {"type": 6}
        edited = wait_for(
            lambda: next(
                (m for m in discord_api.channel(di.CHANNEL_ID) if m["id"] == card["id"] and "done." in m["content"]),
                None,
            ),
            what="the card edited",
        )
        assert "Approved by maintainer: done." in edited["content"]
        assert [b["custom_id"] for row in edited["components"] for b in row["components"]] == [
            b for b in buttons if b.endswith(".triage-duplicates")
        ]  # the other action still waits for its own click
        discord_api.assert_valid()
        assert not serve.problems
    writes = tracker_journal.entries(tracker_journal.journal_path(data, Path(env["ATLAS_HOME"])))
    assert [(e.kind, e.issue_id) for e in writes] == [("add_labels", 10)]
    assert [e.get("decision") for e in audit.entries(redis_conn) if e.kind == "result"] == ["done"]
    assert len([m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components") is not None]) == 1
