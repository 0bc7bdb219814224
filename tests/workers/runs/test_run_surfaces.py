"""A run's surface (workers/runs/surfaces.py): one typed value per platform, stored as the plain object
older versions wrote. Records below are run records exactly as the code before the typed surfaces
wrote them (every key the Slack and Discord reporters kept), so runs already in Redis still load."""

from __future__ import annotations

import json

import pytest
import redis
from pydantic import ValidationError

from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore
from workers.runs.surfaces import CliSurface, DiscordInteraction, DiscordSurface, SlackSurface

# Written by `RunState.model_dump_json()` when `surface` was a dict: a Slack run that streamed its answer
# in the assistant view, was stopped, and whose answer Slack never took. Every Slack key is there.
SLACK_RECORD = (
    '{"id":"5f2a9c0e1b3d4a67","question":"What does ORB-1202 '
    'mean?","origin":{"kind":"slack","user":"U0ALICE","channel":"D0DM",'
    '"thread_ts":"1700050001.000100","message_ts":"1700050001.000100","team":"T0TEST","unprompted":false},"history":[],"context_channel":null,"repo":null,'
    '"status":"done","items":[],"steps":[],"usage":{"input_tokens":0,"cached_tokens":0,"output_tokens":0},"seconds_spent":0.0,'
    '"consecutive_errors":0,"pending":[],"answer":"It is '
    'PermanentError.","stop_reason":null,"partial":false,"sources":[],'
    '"source_urls":{},"cost_usd":0.0,"error":null,"created_at":1700050001.5,"updated_at":1700050009.25,'
    '"surface":{"assistant_thread":true,"progress_mode":"stream","progress_ts":"1700050002.000200","progress_open":false,'
    '"answer_streamed":2210,"answer_ts":["1700050002.000200"],"answer_mode":"stream","answer_digest":"9f86d081884c7d65",'
    '"undelivered":"answer","stopped_by_user":true,"stop_note_ts":"1700050003.000300"},"settings_fingerprint":"3c9d",'
    '"answered_by":null,"handoff":null,"triage":null,"filing":null,"solved":null,"unfiled":false}'
)
# A Discord `/atlas ask` run: its interaction, the thread, progress closed, answers posted both ways. Every Discord key.
DISCORD_RECORD = (
    '{"id":"7c1e","question":"q","origin":{"kind":"discord","user":"1","channel":"2","thread_ts":null,"message_ts":"4",'
    '"team":"3","unprompted":false},"history":[],"context_channel":null,"repo":null,"status":"queued","items":[],"steps":[],"usage":{"input_tokens":0,'
    '"cached_tokens":0,"output_tokens":0},"seconds_spent":0.0,"consecutive_errors":0,"pending":[],"answer":null,'
    '"stop_reason":null,"partial":false,"sources":[],"source_urls":{},"cost_usd":0.0,"error":null,"created_at":1.0,'
    '"updated_at":2.0,"surface":{"interaction":{"app":"1300","token":"tok","at":1700050001.25},"reply_to":"4",'
    '"thread_id":"2","progress_id":"5","progress_open":false,"progress_done":true,"answer_ids":[["6","webhook"],'
    '["7","channel"]],"answer_digest":"ab12"},"settings_fingerprint":null,"answered_by":null,"handoff":null,"triage":null,"filing":null,"solved":null,"unfiled":false}'
)
CLI_RECORD = (
    '{"id":"c","question":"q","origin":{"kind":"cli","user":null,"channel":null,"thread_ts":null,"message_ts":null,'
    '"team":null,"unprompted":false},"history":[],"context_channel":null,"repo":null,"status":"queued","items":[],"steps":[],"usage":{"input_tokens":0,'
    '"cached_tokens":0,"output_tokens":0},"seconds_spent":0.0,"consecutive_errors":0,"pending":[],"answer":null,'
    '"stop_reason":null,"partial":false,"sources":[],"source_urls":{},"cost_usd":0.0,"error":null,"created_at":1.0,'
    '"updated_at":2.0,"surface":{},"settings_fingerprint":null,"answered_by":null,"handoff":null,"triage":null,"filing":null,"solved":null,"unfiled":false}'
)


def _round_trip(record: str) -> tuple[RunState, dict[str, object]]:
    run = RunState.model_validate_json(record)
    return run, json.loads(run.model_dump_json())


def test_a_slack_record_of_today_loads_typed_and_saves_back_unchanged() -> None:
    run, saved = _round_trip(SLACK_RECORD)
    surface = run.surface
    assert isinstance(surface, SlackSurface) and not surface.model_extra  # every key is a field, none kept as unknown
    assert (surface.assistant_thread, surface.progress_mode, surface.progress_ts, surface.progress_open) == (
        True,
        "stream",
        "1700050002.000200",
        False,
    )
    assert (surface.answer_ts, surface.answer_mode, surface.answer_streamed, surface.answer_digest) == (
        ["1700050002.000200"],
        "stream",
        2210,
        "9f86d081884c7d65",
    )
    assert (surface.undelivered, surface.stopped_by_user, surface.stop_note_ts) == ("answer", True, "1700050003.000300")
    assert saved == json.loads(SLACK_RECORD)


def test_a_discord_record_of_today_loads_typed_and_saves_back_unchanged() -> None:
    run, saved = _round_trip(DISCORD_RECORD)
    surface = run.surface
    assert isinstance(surface, DiscordSurface) and not surface.model_extra
    assert surface.interaction == DiscordInteraction(app="1300", token="tok", at=1700050001.25)
    assert (surface.thread_id, surface.reply_to, surface.progress_id, surface.progress_open, surface.progress_done) == (
        "2",
        "4",
        "5",
        False,
        True,
    )
    assert surface.answer_ids == [("6", "webhook"), ("7", "channel")] and surface.answer_digest == "ab12"
    assert saved == json.loads(DISCORD_RECORD)


def test_a_cli_record_of_today_loads_and_saves_back_unchanged() -> None:
    run, saved = _round_trip(CLI_RECORD)
    assert isinstance(run.surface, CliSurface) and run.surface.undelivered is None
    assert saved == json.loads(CLI_RECORD)


def test_only_written_keys_are_stored_and_never_the_kind() -> None:
    """A new mention run stores `{}` (an older process reading it finds no `interaction`, no `undelivered`);
    what a reporter sets is stored, including a value set back to its default."""
    run = RunState(question="q", origin=Origin(kind="discord", channel="2", message_ts="4"))
    assert isinstance(run.surface, DiscordSurface) and json.loads(run.model_dump_json())["surface"] == {}
    run.surface.thread_id, run.surface.progress_open = "9", False
    assert json.loads(run.model_dump_json())["surface"] == {"thread_id": "9", "progress_open": False}


def test_a_key_this_version_does_not_know_survives_a_load_and_a_save(redis_conn: redis.Redis) -> None:
    record = json.loads(SLACK_RECORD)
    record["surface"]["written_by_a_newer_version"] = {"x": 1}
    store = RunStore(redis_conn)
    run = RunState.model_validate(record)
    store.save(run)
    again = store.load(run.id)
    assert isinstance(again.surface, SlackSurface) and again.surface.model_extra == {
        "written_by_a_newer_version": {"x": 1}
    }
    assert json.loads(again.model_dump_json())["surface"] == record["surface"]


def test_each_platform_round_trips_through_the_store(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    for record in (SLACK_RECORD, DISCORD_RECORD, CLI_RECORD):
        run = RunState.model_validate_json(record)
        store.save(run)
        loaded = store.load(run.id)
        assert type(loaded.surface) is type(run.surface) and loaded.surface == run.surface
        assert json.loads(loaded.model_dump_json())["surface"] == json.loads(record)["surface"]


def test_the_surface_follows_the_origin() -> None:
    assert isinstance(RunState(question="q", origin=Origin(kind="slack")).surface, SlackSurface)
    assert isinstance(
        RunState(question="q", origin=Origin(kind="slack"), surface={"assistant_thread": True}).surface, SlackSurface
    )
    with pytest.raises(ValidationError, match="slack run cannot carry a discord surface"):
        RunState(question="q", origin=Origin(kind="slack"), surface=DiscordSurface())
    with pytest.raises(TypeError, match="has a CliSurface; SlackSurface was asked for"):
        SlackSurface.of(RunState(question="q"))


def test_atlas_runs_show_reads_undelivered_from_the_typed_surface() -> None:
    from atlas.cli.show_run import describe

    assert "note: the answer was not delivered to Slack" in describe(RunState.model_validate_json(SLACK_RECORD))
    assert "note:" not in describe(RunState.model_validate_json(DISCORD_RECORD))
