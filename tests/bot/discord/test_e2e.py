"""End to end on Discord: signed interactions -> `atlas serve` -> Redis/RQ -> real `atlas worker`
processes -> the Discord REST stand-in. The model is the offline one or the strict scripted stand-in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from bot.discord.views.components import APPROVE_PREFIX, DENY_PREFIX, FEEDBACK_PREFIX
from datasets import tracker_journal
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_fixtures import discord_api  # noqa: F401
from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_text
from tests.support.processes import atlas_serve, burst_worker
from tests.support.tools_dataset import make_dataset
from workers.approvals import audit

ROLE = "1600000000000000001"
MAINTAINER = di.member("1500000000000000011", roles=(ROLE,), name="maintainer")
OUTSIDER = di.member("1500000000000000012", permissions=1 << 5, name="server-admin-but-not-in-role")


@pytest.fixture
def env(atlas_env: dict[str, str], discord_api: DiscordAPI, tmp_path: Path) -> dict[str, str]:  # noqa: F811
    return {
        **atlas_env,
        **discord_api.env(),
        "DISCORD_PUBLIC_KEY": di.PUBLIC_KEY,
        "ATLAS_DISCORD_APPROVER_ROLE": ROLE,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_MODEL_RETRIES": "0",
    }


@pytest.fixture
def serve(env: dict[str, str], tmp_path: Path, discord_api: DiscordAPI) -> Iterator[di.InteractionSender]:  # noqa: F811
    with serving_discord(env, tmp_path, discord_api) as sender:
        yield sender


@contextmanager
def serving_discord(env: dict[str, str], tmp_path: Path, api: DiscordAPI) -> Iterator[di.InteractionSender]:
    """`atlas serve` as its own process, Discord only, with the settings its workers have."""
    with atlas_serve(env, tmp_path / "serve.log") as port:
        yield di.InteractionSender(f"http://127.0.0.1:{port}/discord/interactions", api)


def test_slash_ask_is_deferred_then_progress_edits_the_original_and_the_answer_follows(
    serve: di.InteractionSender,
    env: dict[str, str],
    discord_api: DiscordAPI,  # noqa: F811
) -> None:
    payload = di.ask("What does ORB-1202 mean?", MAINTAINER)
    assert serve.send(payload).body == {"type": 5}
    assert serve.send(payload).body == {"type": 5}  # a retried delivery of the same interaction
    burst_worker(env)

    edits = discord_api.originals[payload["token"]]
    assert edits and "Working on it" in edits[0]["content"] and "the answer is below" in edits[-1]["content"]
    answers = [m for m in discord_api.channel(f"webhook:{payload['token']}") if "stop: " in m["content"]]
    assert len(answers) == 1  # one interaction, delivered twice: one answer
    [answer] = answers
    assert "ORB-1202" in answer["content"] and answer["allowed_mentions"] == {"parse": []}
    assert answer["components"][0]["components"][0]["custom_id"].startswith(FEEDBACK_PREFIX)
    assert all(len(m["content"]) <= 2000 for m in discord_api.channel(f"webhook:{payload['token']}"))
    discord_api.assert_valid()
    assert not serve.problems


def test_a_side_effect_card_is_refused_to_an_outsider_and_approved_by_a_role_member_with_exactly_one_write(
    env: dict[str, str],
    discord_api: DiscordAPI,
    scripted_model: ScriptedModel,
    redis_conn: redis.Redis,
    tmp_path: Path,  # noqa: F811
) -> None:
    scripted_model.script(
        reply_calls([Call("add_labels", {"issue_id": 3, "labels": ["needs-repro"]}, "call_label")]),
        reply_text("Labelled #3 as a bug."),
    )
    env = {**env, **scripted_model.env()}
    with serving_discord(env, tmp_path, discord_api) as serve:
        payload = di.ask("Please label #3 as a bug", MAINTAINER)
        assert serve.send(payload).body == {"type": 5}
        burst_worker(env)

        [card] = [m for m in discord_api.channel(di.CHANNEL_ID) if m.get("components")]
        approve, deny = card["components"][0]["components"]
        assert approve["custom_id"].startswith(APPROVE_PREFIX) and deny["custom_id"].startswith(DENY_PREFIX)
        pending_id = approve["custom_id"][len(APPROVE_PREFIX) :]
        assert pending_id.endswith(".call_label")  # only the opaque pending id

        refused = serve.send(di.click(approve["custom_id"], OUTSIDER, message=card)).body
        assert refused["type"] == 4 and refused["data"]["flags"] == 64 and "can't approve" in refused["data"]["content"]
        approved = serve.send(di.click(approve["custom_id"], MAINTAINER, message=card)).body
        assert approved["type"] == 7 and approved["data"]["components"] == []
        assert "Approved by <@1500000000000000011>" in approved["data"]["content"]
        again = serve.send(di.click(approve["custom_id"], MAINTAINER, message=card)).body
        assert again["data"]["flags"] == 64 and "already decided" in again["data"]["content"]
        burst_worker(env)

        writes = tracker_journal.entries(tracker_journal.journal_path(Path(env["ATLAS_DATA"])))
        assert [(e.kind, e.issue_id) for e in writes] == [("add_labels", 3)]
        results = [e for e in audit.entries(redis_conn) if e.kind == "result"]
        assert len(results) == 1 and results[0].get("decision") == "done"
        edited = next(m for m in discord_api.channel(di.CHANNEL_ID) if m["id"] == card["id"])
        assert "Done:" in edited["content"] and edited["components"] == []
        answers = [m for m in discord_api.channel(f"webhook:{payload['token']}") if "stop: " in m["content"]]
        assert len(answers) == 1 and "Labelled #3" in answers[0]["content"]
        discord_api.assert_valid()
        assert not serve.problems


def test_a_bad_signature_is_refused_by_atlas_serve(serve: di.InteractionSender, redis_conn: redis.Redis) -> None:
    assert serve.send(di.ping()).body == {"type": 1}
    assert serve.send(di.ask("hello", MAINTAINER), tamper=True).status == 401
    assert not list(redis_conn.scan_iter("atlas:run:*"))
