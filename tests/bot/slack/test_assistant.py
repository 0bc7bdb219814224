"""Slack's assistant view through Bolt with signed requests: a new thread's greeting and prompts, the
person's context, and a question in the thread becoming one run, like a DM."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue
from slack_bolt import Assistant, BoltRequest, BoltResponse
from slack_bolt.listener import Listener
from slack_bolt.request.payload_utils import (
    is_assistant_thread_context_changed_event,
    is_assistant_thread_started_event,
    is_bot_message_event_in_assistant_thread,
    is_user_message_event_in_assistant_thread,
)

from atlas.errors import ConfigError
from atlas.project_settings import PROJECT_ASSISTANT_PROMPTS
from atlas.settings import DEFAULT_ASSISTANT_PROMPTS, Settings
from bot.slack import assistant_threads, wording
from bot.slack.assistant import build as build_assistant
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import (
    assistant_message,
    assistant_thread_context_changed,
    assistant_thread_started,
    direct_message,
    mention,
)
from tests.standins.slack_fixtures import RunningBot, bot, slack_api, slack_settings, start_bot  # noqa: F401
from tests.support.processes import wait_for
from tests.support.tools_dataset import make_dataset
from workers.runs.state import RunState
from workers.runs.store import RunStore

DM, THREAD = "D0ALICE", "1700009000.000100"


def _runs(conn: redis.Redis) -> list[RunState]:
    store = RunStore(conn)
    return [store.load(k.decode().split(":")[-1]) for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def _greetings(api: SlackAPI) -> list[dict]:
    return [m for m in api.thread(DM, THREAD) if m["text"] == wording.ASSISTANT_GREETING]


def test_a_new_assistant_thread_is_greeted_once_with_the_suggested_prompts(
    bot: RunningBot, redis_conn: redis.Redis
) -> None:
    bot.api.open_assistant_thread(DM, THREAD)
    event = assistant_thread_started(thread_ts=THREAD, context_channel="C0RELEASES")
    assert bot.send.event(event).status == 200
    thread = wait_for(
        lambda: bot.api.assistant_threads[(DM, THREAD)]["prompts"] and bot.api.assistant_threads[(DM, THREAD)],
        what="the suggested prompts",
    )
    assert [p["message"] for p in thread["prompts"]] == list(DEFAULT_ASSISTANT_PROMPTS)
    assert all(p["title"] for p in thread["prompts"]) and thread["prompts_title"] == wording.ASSISTANT_PROMPTS_TITLE
    [greeting] = wait_for(lambda: _greetings(bot.api), what="the greeting")
    assert greeting["metadata"]["event_payload"]["channel_id"] == "C0RELEASES"  # Bolt's say() carries the context
    assert assistant_threads.find(redis_conn, DM, THREAD) == assistant_threads.AssistantThread("C0RELEASES", "T0TEST")

    assert bot.send.event(event, retry_num=1).status == 200  # Slack's retry of the same event
    bot.api.open_assistant_thread(
        DM, "1700009001.000100"
    )  # another thread: its prompts show the retry has been handled
    bot.send.event(assistant_thread_started(thread_ts="1700009001.000100"))
    wait_for(lambda: bot.api.assistant_threads[(DM, "1700009001.000100")]["prompts"], what="the other thread's prompts")
    prompted = [
        c for c in bot.api.calls_to("assistant.threads.setSuggestedPrompts") if c.args.get("thread_ts") == THREAD
    ]
    assert len(_greetings(bot.api)) == 1 and len(prompted) == 1
    assert _runs(redis_conn) == []


def test_the_prompts_come_from_the_settings(slack_api: SlackAPI, redis_url: str, tmp_path: Path) -> None:  # noqa: F811
    settings = replace(
        slack_settings(slack_api, redis_url, tmp_path / "home", data_dir=make_dataset(tmp_path / "data")),
        assistant_prompts=("Which issues mention lease_seconds?",),
    )
    running, server = start_bot(settings, slack_api)
    try:
        slack_api.open_assistant_thread(DM, THREAD)
        running.send.event(assistant_thread_started(thread_ts=THREAD))
        prompts = wait_for(lambda: slack_api.assistant_threads[(DM, THREAD)]["prompts"], what="the prompts")
        assert prompts == [
            {"title": "Which issues mention lease_seconds?", "message": "Which issues mention lease_seconds?"}
        ]
    finally:
        server.close()
        running.deps.background.shutdown(wait=True)


def test_with_no_prompts_configured_the_greeting_offers_none(
    slack_api: SlackAPI, redis_url: str, tmp_path: Path
) -> None:  # noqa: F811
    settings = replace(
        slack_settings(slack_api, redis_url, tmp_path / "home", data_dir=make_dataset(tmp_path / "data")),
        assistant_prompts=(),
    )
    running, server = start_bot(settings, slack_api)
    try:
        slack_api.open_assistant_thread(DM, THREAD)
        running.send.event(assistant_thread_started(thread_ts=THREAD))
        [greeting] = wait_for(lambda: [m for m in slack_api.thread(DM, THREAD) if m["text"]], what="the greeting")
        assert "Ask me anything about the project" in greeting["text"] and "Try one of these" not in greeting["text"]
        assert slack_api.calls_to("assistant.threads.setSuggestedPrompts") == []
    finally:
        server.close()
        running.deps.background.shutdown(wait=True)


def test_the_context_follows_the_person_from_channel_to_channel(bot: RunningBot, redis_conn: redis.Redis) -> None:
    bot.api.open_assistant_thread(DM, THREAD)
    bot.send.event(assistant_thread_started(thread_ts=THREAD, context_channel="C0GENERAL"))
    wait_for(lambda: _greetings(bot.api), what="the greeting")
    assert (
        bot.send.event(assistant_thread_context_changed(thread_ts=THREAD, context_channel="C0RELEASES")).status == 200
    )
    wait_for(
        lambda: (
            (assistant_threads.find(redis_conn, DM, THREAD) or assistant_threads.AssistantThread()).context_channel
            == "C0RELEASES"
        ),
        what="the new context",
    )
    assert len(_greetings(bot.api)) == 1  # moving around greets nobody again


def test_a_question_in_the_assistant_thread_is_one_run_like_a_dm(bot: RunningBot, redis_conn: redis.Redis) -> None:
    bot.api.open_assistant_thread(DM, THREAD)
    bot.send.event(assistant_thread_started(thread_ts=THREAD))
    event = assistant_message("What does ORB-1202 mean?", thread_ts=THREAD, ts="1700009005.000100")
    replies = [bot.send.event(event, retry_num=n).status for n in (None, 1, 2)]
    assert replies == [200, 200, 200]
    [run] = _runs(redis_conn)
    assert run.question == "What does ORB-1202 mean?" and run.status == "queued"
    assert (run.origin.kind, run.origin.channel, run.origin.thread_ts, run.origin.message_ts) == (
        "slack",
        DM,
        THREAD,
        "1700009005.000100",
    )
    assert Queue("atlas", connection=redis_conn).get_job_ids() == [f"atlas-run-{run.id}"]


def test_dms_outside_assistant_threads_start_runs_as_before(bot: RunningBot, redis_conn: redis.Redis) -> None:
    """A top-level DM and a reply in a DM thread (which Bolt's Assistant also sees) each start one run."""
    bot.send.event(direct_message("how do retries work?", ts="1700009100.000001"))
    bot.send.event(direct_message("and the backoff?", ts="1700009101.000001", thread_ts="1700009100.000001"))
    runs = sorted(_runs(redis_conn), key=lambda r: r.origin.message_ts or "")
    assert [(r.question, r.origin.thread_ts) for r in runs] == [
        ("how do retries work?", "1700009100.000001"),
        ("and the backoff?", "1700009100.000001"),
    ]
    assert bot.api.calls_to("assistant.threads.setTitle", "assistant.threads.setSuggestedPrompts") == []


def test_assistant_prompts_setting_reads_a_bar_separated_list_of_at_most_four() -> None:
    assert Settings.from_env({}).assistant_prompts == DEFAULT_ASSISTANT_PROMPTS
    # another project gets prompts that name nothing of Orbit's, unless it sets its own
    for env in ({"ATLAS_PROJECT_NAME": "Rocket"}, {"ATLAS_GITHUB_REPO": "acme/rocket"}):
        prompts = Settings.from_env(env).assistant_prompts
        assert prompts == PROJECT_ASSISTANT_PROMPTS and not any("ORB-" in p or "#143" in p for p in prompts)
    assert Settings.from_env(
        {"ATLAS_GITHUB_REPO": "acme/rocket", "ATLAS_ASSISTANT_PROMPTS": "Hi"}
    ).assistant_prompts == ("Hi",)
    assert Settings.from_env(
        {"ATLAS_ASSISTANT_PROMPTS": " What is ORB-1101? | Find stale issues |"}
    ).assistant_prompts == ("What is ORB-1101?", "Find stale issues")
    with pytest.raises(ConfigError, match="ATLAS_ASSISTANT_PROMPTS"):
        Settings.from_env({"ATLAS_ASSISTANT_PROMPTS": "a|b|c|d|e"})


def test_the_plain_feedback_buttons_vote_like_slacks_feedback_buttons(bot: RunningBot, redis_conn: redis.Redis) -> None:
    from bot.slack.views.answer import FEEDBACK_BUTTON_ACTIONS
    from tests.standins.slack_interactions import block_action
    from workers.console_data import votes

    run_id = "0123456789abcdef"
    for action_id, user in zip(FEEDBACK_BUTTON_ACTIONS, ("U0ALICE", "U0BOB"), strict=True):
        assert (
            bot.send.interaction(block_action(action_id, f"{run_id}:{action_id.rsplit('_', 1)[1]}", user=user)).status
            == 200
        )
    wait_for(lambda: votes.votes(redis_conn, run_id) == {"U0ALICE": "up", "U0BOB": "down"}, what="both votes")


# -- the middleware stays out of the way of everything else ---------------------------------------


def _assistant_listeners(assistant: Assistant) -> list[Listener]:
    """Every listener Bolt's Assistant keeps (its private lists: pinned here against a Bolt upgrade)."""
    kinds = (
        "_thread_started_listeners",
        "_thread_context_changed_listeners",
        "_user_message_listeners",
        "_bot_message_listeners",
    )
    return [listener for kind in kinds for listener in getattr(assistant, kind) or []]


def test_each_assistant_listener_is_picked_by_one_of_the_predicates_the_gate_checks(bot: RunningBot) -> None:
    """ScopedAssistant passes a request on at once unless Bolt's assistant predicates accept it; that is
    only the same as Bolt's own matching while every listener's first matcher is one of them."""
    assistant = build_assistant(bot.deps)
    listeners = _assistant_listeners(assistant)
    assert len(listeners) >= 3  # greet, follow_context, the question's claim
    gated = {
        is_assistant_thread_started_event,
        is_assistant_thread_context_changed_event,
        is_user_message_event_in_assistant_thread,
        is_bot_message_event_in_assistant_thread,
    }
    assert all(getattr(listener.matchers[0], "func", None) in gated for listener in listeners)


@pytest.mark.parametrize(
    "body",
    [
        mention("what is lease_seconds?"),
        direct_message("a DM outside any assistant thread"),
        {"type": "block_actions", "actions": [{"action_id": "atlas_approve", "value": "x"}], "user": {"id": "U0ALICE"}},
    ],
)
def test_a_request_not_about_an_assistant_thread_passes_the_assistant_without_trying_its_listeners(
    bot: RunningBot, body: dict[str, Any]
) -> None:
    """The Assistant is a global middleware: on mentions, DMs and clicks it must cost nothing, not a
    keyword-injected matcher call per listener."""
    assistant = build_assistant(bot.deps)
    tried: list[str] = []
    for listener in _assistant_listeners(assistant):
        listener.matches = lambda *, req, resp, name=listener.ack_function.__name__: tried.append(name) or False  # type: ignore[method-assign]
    request = BoltRequest(body=json.dumps(body), headers={"content-type": ["application/json"]})
    request.context["listener_runner"] = None  # Bolt's App sets it; no listener is run here
    passed: list[bool] = []
    assistant.process(req=request, resp=BoltResponse(status=200), next=lambda: passed.append(True))  # type: ignore[arg-type, func-returns-value]
    assert passed == [True] and tried == []


def test_an_assistant_thread_message_still_reaches_the_assistant_listeners(bot: RunningBot) -> None:
    assistant = build_assistant(bot.deps)
    tried: list[str] = []
    for listener in _assistant_listeners(assistant):
        listener.matches = lambda *, req, resp, name=listener.ack_function.__name__: tried.append(name) or False  # type: ignore[method-assign]
    request = BoltRequest(
        body=json.dumps(assistant_message("hello", thread_ts=THREAD)), headers={"content-type": ["application/json"]}
    )
    request.context["listener_runner"] = None  # Bolt's App sets it; no listener is run here
    passed: list[bool] = []
    assistant.process(req=request, resp=BoltResponse(status=200), next=lambda: passed.append(True))  # type: ignore[arg-type, func-returns-value]
    assert passed == [True] and "answered_by_middleware" in tried  # tried, refused by the stub, passed on
