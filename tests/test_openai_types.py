"""Without OpenAI's spec beside the clone, the Responses stand-in checks payloads with the SDK's types.

These run whether or not `../shared` is there: the `no_spec` fixture hides it, as in a plain clone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import openai
import pytest

from tests.standins import openai_spec, openai_types
from tests.standins.responses_api import ScriptedModel, reply_calls, reply_error, reply_text
from tests.test_responses_standin import ask


@pytest.fixture
def no_spec(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv(openai_spec.SPEC_ENV, raising=False)
    monkeypatch.setattr(openai_spec, "spec_path", lambda: tmp_path / "no-shared" / "openai-openapi.json")
    assert not openai_spec.spec_available()
    yield


def test_a_well_formed_exchange_passes(no_spec: None) -> None:
    with ScriptedModel(reply_calls([("search_docs", {"query": "q", "k": 3})]), reply_text("done")) as model:
        first = ask(model)
        call = first.output[-1]
        ask(model, [{"role": "user", "content": "hi"}, call.model_dump(exclude_none=True),
                    {"type": "function_call_output", "call_id": call.call_id, "output": "found"}])
        model.assert_done()
        assert [openai_types.problems("Response", r.body) for r in model.replies] == [[], []]


def test_a_request_the_sdk_types_reject_is_flagged_and_refused(no_spec: None) -> None:
    with ScriptedModel(reply_text("unused")) as model:
        with pytest.raises(openai.BadRequestError) as caught:
            ask(model, extra_body={"input": 5})
        assert caught.value.body["param"] == "input"
        raw = httpx2.post(f"{model.base_url}/responses", json={"model": "gpt-5.1", "input": "x",
                                                                "tools": [{"type": "function", "name": "f"}]})
        assert raw.status_code == 400 and raw.json()["error"]["param"] == "tools[0]"
        with pytest.raises(openai.BadRequestError, match="Unknown parameter: 'max_tokens'"):
            ask(model, extra_body={"max_tokens": 10})
        with pytest.raises(AssertionError, match=r"violates CreateResponse(.|\n)*'parameters' is a required property"):
            model.assert_done()


def test_an_input_item_missing_a_field_is_named_where_it_is(no_spec: None) -> None:
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "input_text"}]}]}
    assert [str(p) for p in openai_spec.request_problems(body)] == ["input[0].content[0]: 'text' is a required property"]


def test_a_broken_reply_is_flagged(no_spec: None) -> None:
    no_tools = reply_text("hi").edited(lambda body: {k: v for k, v in body.items() if k != "tools"})
    with ScriptedModel(no_tools) as model:
        ask(model)
        with pytest.raises(AssertionError, match=r"violates Response(.|\n)*'tools' is a required property"):
            model.assert_done()


def test_error_replies_are_checked_too(no_spec: None) -> None:
    assert openai_types.problems("ErrorResponse", {"error": {"message": "m", "type": "t", "param": None, "code": None}}) == []
    assert [str(p) for p in openai_types.problems("ErrorResponse", {"error": {"type": "t"}})] == ["error: 'message' is a required property"]
    with ScriptedModel(reply_error(500)) as model, pytest.raises(openai.InternalServerError):
        ask(model)
    assert model.failures == []


def test_a_named_spec_that_is_missing_is_still_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(openai_spec.SPEC_ENV, str(tmp_path / "nowhere.json"))
    with pytest.raises(openai_spec.SpecMissing):
        ScriptedModel()
