"""End to end: signed Slack requests -> the Bolt app -> Redis/RQ -> real `atlas worker` processes -> the
Slack stand-in. The model is the offline one, or the strict scripted Responses API stand-in.
"""

from __future__ import annotations

import json
from pathlib import Path

import redis

from bot.slack import wording
from tests.standins.responses_api import ScriptedModel
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender, mention
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.standins.turns import reply_error, reply_text
from tests.support.processes import (
    atlas_process,
    burst_worker,
    free_port,
    serving,
    wait_for,
    worker_process,
)
from tests.support.slack_serving import CHANNEL, env, serve, serving_app  # noqa: F401 - fixtures, requested by name
from tests.support.slack_serving import answers as _answers
from workers import wording as run_words
from workers.runs import conversations
from workers.runs.store import RunStore


def test_mention_is_queued_worked_on_with_progress_and_answered_in_its_thread(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    thread = "1700001000.000100"
    reply = serve.event(mention("What does ORB-1202 mean?", ts=thread))
    assert reply.status == 200
    burst_worker(env)

    messages = slack_api.thread(CHANNEL, thread)
    progress, answer = messages  # one progress message, one answer: nothing else in the thread
    cards = [c for c in progress["chunks"] if c["type"] == "task_update"]
    assert cards and {c["status"] for c in cards[-2:]} == {"complete"} and not progress["streaming"]
    assert any("ORB-1202" in c["title"] for c in cards)
    types = [b["type"] for b in answer["blocks"]]
    assert types[0] == "markdown" and types[-1] == "context_actions"
    footer = json.dumps(answer["blocks"][-2])
    assert "steps" in footer and "stop: done" in footer
    assert all(
        c.args.get("channel") in (CHANNEL, None) for c in slack_api.calls_to("chat.postMessage", "chat.startStream")
    )

    [run] = [
        RunStore(redis_conn).load(k.decode().rsplit(":", 1)[1])
        for k in redis_conn.scan_iter("atlas:run:*")
        if k.count(b":") == 2
    ]
    assert run.status == "done" and run.surface.answer_ts == [answer["ts"]]
    assert conversations.turns(redis_conn, "T0TEST", CHANNEL, thread)[0].question == "What does ORB-1202 mean?"

    # The same run delivered to a worker again (a retried job): nothing is posted twice.
    from rq import Queue

    from workers.jobs.runs import continue_run

    posts = len(slack_api.calls_to("chat.postMessage"))
    Queue("atlas", connection=redis_conn).enqueue(continue_run, run.id, job_id=f"redelivery-{run.id}")
    burst_worker(env)
    assert len(slack_api.calls_to("chat.postMessage")) == posts and len(slack_api.thread(CHANNEL, thread)) == 2
    assert len(conversations.turns(redis_conn, "T0TEST", CHANNEL, thread)) == 1


def test_follow_up_mention_continues_the_thread_with_its_earlier_turns(
    env: dict[str, str],
    slack_api: SlackAPI,
    scripted_model: ScriptedModel,
    tmp_path: Path,  # noqa: F811
) -> None:
    scripted_model.script(
        reply_text("ORB-1202 is **PermanentError**: it is never retried."),
        reply_text("Raise `orbit.PermanentError` from the job."),
    )
    env = {**env, **scripted_model.env()}
    thread = "1700002000.000100"
    with serving_app(env, tmp_path) as serve:
        serve.event(mention("What does ORB-1202 mean?", ts=thread))
        burst_worker(env)
        serve.event(mention("How do I raise it myself?", ts="1700002001.000100", thread_ts=thread))
        burst_worker(env)

    second = scripted_model.requests[1].body["input"]
    said = [(i.get("role"), i.get("content")) for i in second if i.get("type") == "message"]
    assert said[:3] == [
        ("user", "What does ORB-1202 mean?"),
        ("assistant", "ORB-1202 is **PermanentError**: it is never retried."),
        ("user", "How do I raise it myself?"),
    ]
    answers = _answers(slack_api, thread)
    assert [a["blocks"][0]["text"] for a in answers] == [
        "ORB-1202 is **PermanentError**: it is never retried.",
        "Raise `orbit.PermanentError` from the job.",
    ]


def test_a_model_that_refuses_gets_a_clear_failure_note_in_the_thread(
    env: dict[str, str],
    slack_api: SlackAPI,
    scripted_model: ScriptedModel,
    tmp_path: Path,  # noqa: F811
) -> None:
    scripted_model.script(reply_error(401, message="Incorrect API key provided: sk-test-****1234"))
    thread = "1700003000.000100"
    env = {**env, **scripted_model.env()}
    with serving_app(env, tmp_path) as serve:
        serve.event(mention("What does ORB-1202 mean?", ts=thread))
        burst_worker(env)
    [note] = _answers(slack_api, thread)
    text = json.dumps(note)
    assert run_words.stop_reason("model_rejected") in text and "couldn't finish" in text
    assert "sk-test" not in text and "401" not in text and "Traceback" not in text


def test_a_model_api_down_after_retries_is_reported_with_what_was_found(
    env: dict[str, str],
    slack_api: SlackAPI,
    tmp_path: Path,  # noqa: F811
) -> None:
    """A closed loopback port: every call fails; RQ retries the job, then the thread is told why."""
    env = {**env, "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "OPENAI_API_KEY": "test"}
    thread = "1700004000.000100"
    with serving_app(env, tmp_path) as serve:
        serve.event(mention("What does ORB-1202 mean?", ts=thread))
    with worker_process({**env, "ATLAS_HOME": str(tmp_path / "worker-home")}, "model-down"):
        [note] = wait_for(lambda: _answers(slack_api, thread), timeout=90, interval=0.2, what="the failure note")
    assert run_words.stop_reason("model_unavailable") in json.dumps(note)


def test_a_worker_with_other_settings_than_the_web_process_tells_the_thread_and_does_not_answer(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    scripted_model: ScriptedModel,  # noqa: F811
) -> None:
    """`atlas serve` took the question offline; a worker configured with a model must not answer it."""
    thread = "1700005000.000100"
    serve.event(mention("What does ORB-1202 mean?", ts=thread))
    burst_worker({**env, **scripted_model.env()})
    [note] = _answers(slack_api, thread)
    assert run_words.stop_reason("settings_mismatch") in json.dumps(note) and "couldn't finish" in json.dumps(note)
    assert scripted_model.requests == []  # the worker's model was never asked


def test_serve_with_several_processes_shares_one_port_and_stops_cleanly(
    env: dict[str, str], redis_conn: redis.Redis, tmp_path: Path
) -> None:
    import psutil

    port = free_port()
    proc = atlas_process(
        ["serve", "--host", "127.0.0.1", "--port", str(port), "--processes", "2"], env, tmp_path / "serve.log"
    )
    try:
        wait_for(lambda: serving(port) or proc.poll() is not None, timeout=60, what="atlas serve to listen")
        children = psutil.Process(proc.pid).children()
        assert len(children) == 2
        send = SlackSender(f"http://127.0.0.1:{port}/slack/events")
        statuses = [send.event(mention(f"question {n}", ts=f"1700005000.{n:06d}")).status for n in range(20)]
        assert statuses == [200] * 20
        assert len([k for k in redis_conn.scan_iter("atlas:run:*") if k.count(b":") == 2]) == 20
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert not any(c.is_running() and c.status() != psutil.STATUS_ZOMBIE for c in children)


def test_a_person_who_presses_stop_ends_the_run_and_gets_one_short_note(
    serve: SlackSender,
    env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    thread = "1700001500.000100"
    slack_api.stop_at_next_append()  # pressed while the first lookups run
    assert serve.event(mention("What does ORB-1202 mean?", ts=thread)).status == 200
    burst_worker(env)
    progress, note = slack_api.thread(CHANNEL, thread)  # no second progress message, no answer
    assert progress["stopped_by_user"] and note["text"] == wording.PROGRESS_STOPPED
    assert len(slack_api.calls_to("chat.startStream")) == 1 and _answers(slack_api, thread) == []
    [run] = [
        RunStore(redis_conn).load(k.decode().rsplit(":", 1)[1])
        for k in redis_conn.scan_iter("atlas:run:*")
        if k.count(b":") == 2
    ]
    assert run.status == "partial" and run.stop_reason == "stopped_by_user" and len(run.steps) == 1
    assert conversations.turns(redis_conn, "T0TEST", CHANNEL, thread) == []
