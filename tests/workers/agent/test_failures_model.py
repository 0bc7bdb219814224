"""A model reply that is HTTP 200 but not a Response: asked again, then a clear note to the asker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis
from rq import Worker

from atlas.settings import Settings
from tests.standins.responses_api import NotAResponse, ScriptedModel
from tests.standins.turns import reply_text
from tests.support.processes import atlas_command, wait_for, worker_process
from tests.support.tools_dataset import make_dataset
from workers.agent.model import ModelRequest, ResponsesModel
from workers.errors import ModelMalformed
from workers.runs.queueing import settings_queue
from workers.wording import MODEL_MALFORMED

GARBAGE = [
    NotAResponse({"hello": "world"}),
    NotAResponse("just a string"),
    NotAResponse(b"<html>502 from a proxy</html>"),
    NotAResponse({"output": 5}),
    NotAResponse({"id": "resp_1", "object": "response", "output": [{"no": "type"}]}),
]
REQUEST = ModelRequest(instructions="Answer.", input=[{"type": "message", "role": "user", "content": "hi"}], tools=[])


def _model(stand_in: ScriptedModel, retries: int) -> ResponsesModel:
    return ResponsesModel(Settings(openai_api_key="test", openai_base_url=stand_in.base_url, model_max_retries=retries))


@pytest.mark.parametrize("garbage", GARBAGE, ids=["object", "string", "html", "output-not-a-list", "item-without-type"])
def test_a_malformed_reply_is_asked_again_and_the_next_good_one_is_used(
    scripted_model: ScriptedModel, garbage: NotAResponse
) -> None:
    scripted_model.script(garbage, reply_text("fine now"))
    reply = _model(scripted_model, retries=2).respond(REQUEST)
    assert reply.text == "fine now" and len(scripted_model.requests) == 2
    scripted_model.assert_done()


def test_malformed_replies_past_the_retries_are_a_model_malformed_error(scripted_model: ScriptedModel) -> None:
    scripted_model.script(*GARBAGE[:3])
    with pytest.raises(ModelMalformed):
        _model(scripted_model, retries=2).respond(REQUEST)
    assert len(scripted_model.requests) == 3


def test_the_asker_gets_a_clear_note_not_a_traceback(tmp_path: Path, redis_url: str) -> None:
    with ScriptedModel(fallback=NotAResponse({"hello": "world"})) as model:
        env = {
            "ATLAS_HOME": str(tmp_path / "home"),
            "REDIS_URL": redis_url,
            "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
            "ATLAS_MODEL_RETRIES": "1",
            **model.env(),
        }
        conn = redis.Redis.from_url(redis_url)
        queue = settings_queue(
            Settings.from_env(env).queue_name, Settings.from_env(env).fingerprint
        )  # where ask sends its run
        with worker_process(env, "malformed", "--queue", queue) as worker:
            wait_for(
                lambda: Worker.all(connection=conn), timeout=60, what="the worker to register"
            )  # so ask starts none
            done = atlas_command("ask", "--json", "What does ORB-1202 mean?", env=env, timeout=120)
            assert worker.poll() is None  # the worker lives on
            assert [w.name for w in Worker.all(connection=conn)] == ["malformed"]
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "failed" and result["stop_reason"] == "model_malformed"
    assert MODEL_MALFORMED in result["answer"]
    assert "Traceback" not in done.stdout + done.stderr
    assert len(model.requests) >= 2  # asked again before giving up
