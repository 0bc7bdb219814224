"""The scripted Responses API stand-in, driven through the real openai SDK."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx2
import openai
import pydantic
import pytest
from jsonschema import Draft202012Validator
from openai.types.responses import ResponseFunctionToolCall, ResponseReasoningItem

from tests.standins import openai_spec
from tests.standins.fixtures import scripted_model, validation  # noqa: F401  (fixtures under test)
from tests.standins.responses_api import (
    ScriptedModel,
    Usage,
    call_outputs,
    last_user_text,
    reply_calls,
    reply_error,
    reply_incomplete,
    reply_text,
)


class SearchDocs(pydantic.BaseModel):
    """Search the project's docs."""

    query: str
    k: int


TOOL = openai.pydantic_responses_function_tool(SearchDocs, name="search_docs")


def client(model: ScriptedModel, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=model.base_url, api_key="test", max_retries=retries)


def ask(model: ScriptedModel, input: list[dict] | str = "hi", retries: int = 0, **kwargs: object) -> object:
    """A request shaped like Atlas's."""
    params: dict[str, object] = {
        "model": "gpt-5.1",
        "instructions": "You are Atlas.",
        "input": input,
        "tools": [TOOL],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "max_output_tokens": 800,
        "store": False,
        "include": ["reasoning.encrypted_content"],
    }
    params.update(kwargs)
    return client(model, retries).responses.create(**params)  # type: ignore[call-overload]


def test_text_reply_is_parsed_and_request_recorded(scripted_model: ScriptedModel) -> None:
    usage = Usage(input_tokens=1200, output_tokens=40, cached_tokens=1024, reasoning_tokens=8)
    scripted_model.script(reply_text("Use `orbit sync`.", usage=usage))
    response = ask(scripted_model, [{"role": "user", "content": "How do I sync?"}], metadata={"thread": "T1"})
    assert response.output_text == "Use `orbit sync`."
    assert response.id.startswith("resp_") and response.status == "completed"
    assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens) == (1200, 40, 1240)
    assert response.usage.input_tokens_details.cached_tokens == 1024
    assert response.usage.output_tokens_details.reasoning_tokens == 8
    sent = scripted_model.bodies()[0]
    assert sent["instructions"] == "You are Atlas." and sent["store"] is False
    assert sent["metadata"] == {"thread": "T1"} and sent["input"][0]["content"] == "How do I sync?"
    assert scripted_model.requests[0].headers["authorization"] == "Bearer test"


def test_function_calls_parse_into_sdk_types(scripted_model: ScriptedModel) -> None:
    scripted_model.script(
        reply_calls([("search_docs", {"query": "sync", "k": 5}), ("search_docs", {"query": "x", "k": 1}, "call_fixed")])
    )
    response = ask(scripted_model, "How do I sync?")
    calls = response.output
    assert all(isinstance(c, ResponseFunctionToolCall) for c in calls) and len(calls) == 2
    assert json.loads(calls[0].arguments) == {"query": "sync", "k": 5}
    assert calls[0].call_id.startswith("call_") and calls[0].id.startswith("fc_") and calls[0].status == "completed"
    assert calls[1].call_id == "call_fixed"
    # Answer both calls so the conversation is complete.
    scripted_model.script(reply_text("done"))
    outputs = [{"type": "function_call_output", "call_id": c.call_id, "output": "[]"} for c in calls]
    history = [{"role": "user", "content": "How do I sync?"}, *calls, *outputs]
    assert ask(scripted_model, history).output_text == "done"


def test_reasoning_items_round_trip(scripted_model: ScriptedModel) -> None:
    scripted_model.script(
        reply_calls([("search_docs", {"query": "sync", "k": 3})], reasoning="Look it up."),
        lambda request: reply_text(f"saw {sorted(call_outputs(request).items())}"),
    )
    first = ask(scripted_model, [{"role": "user", "content": "sync?"}])
    thought, call = first.output
    assert isinstance(thought, ResponseReasoningItem) and thought.encrypted_content
    assert thought.summary[0].text == "Look it up."
    answer = {"type": "function_call_output", "call_id": call.call_id, "output": "hit"}
    second = ask(scripted_model, [{"role": "user", "content": "sync?"}, thought, call, answer])
    assert second.output_text == f"saw [('{call.call_id}', 'hit')]"
    returned = scripted_model.bodies()[1]["input"][1]
    assert returned == {
        "id": thought.id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Look it up."}],
        "encrypted_content": thought.encrypted_content,
    }


@pytest.mark.parametrize(
    "mangle, expected",
    [
        (lambda t, c: [t.model_dump(exclude={"encrypted_content"}, exclude_none=True), c], "not persisted"),
        (lambda t, c: [{**t.model_dump(exclude_none=True), "encrypted_content": "gAAAAAx"}, c], "not be verified"),
        (lambda t, c: [c], "without its required 'reasoning' item"),
    ],
)
def test_reasoning_mishandling_is_refused(mangle, expected: str) -> None:
    with ScriptedModel(reply_calls([("search_docs", {"query": "q", "k": 1})], reasoning=True)) as model:
        thought, call = ask(model, "q").output
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "x"}
        with pytest.raises(openai.APIStatusError, match=expected):
            ask(model, [{"role": "user", "content": "q"}, *mangle(thought, call), output])
        with pytest.raises(AssertionError, match=expected):
            model.assert_done()


def test_reasoning_without_its_output_is_refused() -> None:
    with ScriptedModel(reply_incomplete(), reply_text("unused")) as model:
        (thought,) = ask(model, "q").output
        with pytest.raises(openai.BadRequestError, match="without its required following item"):
            ask(model, [{"role": "user", "content": "q"}, thought, {"role": "user", "content": "go on"}])
        with pytest.raises(AssertionError, match="required following item(.|\n)*1 scripted turn"):
            model.assert_done()


def test_rate_limit_is_retried_by_the_sdk(scripted_model: ScriptedModel) -> None:
    scripted_model.script(reply_error(429, retry_after=1), reply_text("after the wait"))
    started = time.monotonic()
    assert ask(scripted_model, retries=2).output_text == "after the wait"
    assert time.monotonic() - started >= 0.9  # the SDK honoured retry-after
    first, retry = scripted_model.requests
    assert (first.headers["x-stainless-retry-count"], retry.headers["x-stainless-retry-count"]) == ("0", "1")
    assert retry.body == first.body
    assert scripted_model.replies[0].headers["retry-after"] == "1"
    assert scripted_model.replies[0].body["error"]["code"] == "rate_limit_exceeded"


def test_server_error_has_the_api_error_shape(scripted_model: ScriptedModel) -> None:
    scripted_model.script(reply_error(500))
    with pytest.raises(openai.InternalServerError) as caught:
        ask(scripted_model)
    assert caught.value.body["type"] == "server_error"
    assert set(caught.value.body) == {"message", "type", "param", "code"}


def test_incomplete_reply(scripted_model: ScriptedModel) -> None:
    scripted_model.script(reply_incomplete(text="Partial"))
    response = ask(scripted_model, max_output_tokens=300)
    assert response.status == "incomplete" and response.incomplete_details.reason == "max_output_tokens"
    assert response.output_text == "Partial" and response.output[-1].status == "incomplete"
    assert response.usage.output_tokens == 300


def test_unscripted_request_fails_assert_done() -> None:
    with ScriptedModel() as model:
        with pytest.raises(openai.InternalServerError, match="Unscripted"):
            ask(model, retries=2)
        assert len(model.requests) == 1  # x-should-retry: false stops the SDK retrying a test bug
        with pytest.raises(AssertionError, match="unscripted request"):
            model.assert_done()


def test_unused_turns_fail_assert_done() -> None:
    with ScriptedModel(reply_text("never asked")) as model, pytest.raises(AssertionError, match="1 scripted turn"):
        model.assert_done()


def test_fallback_answers_an_empty_queue() -> None:
    with ScriptedModel(reply_text("scripted"), fallback=lambda r: reply_text(f"echo {last_user_text(r)}")) as model:
        assert ask(model, "a").output_text == "scripted"
        assert [ask(model, q).output_text for q in ("b", "c")] == ["echo b", "echo c"]
        model.assert_done()


def test_request_violating_create_response_is_flagged(validation: str) -> None:
    with ScriptedModel(reply_text("unused")) as model:
        with pytest.raises(openai.BadRequestError) as caught:
            ask(model, extra_body={"input": 5})
        assert caught.value.body["param"] == "input"
        raw = httpx2.post(
            f"{model.base_url}/responses",
            json={"model": "gpt-5.1", "input": "x", "tools": [{"type": "function", "name": "f"}]},
        )
        assert raw.status_code == 400 and raw.json()["error"]["param"] == "tools[0]"
        with pytest.raises(AssertionError, match=r"violates CreateResponse(.|\n)*'parameters' is a required property"):
            model.assert_done()
        assert model.pending == 1  # refused requests do not consume turns


def test_unknown_parameter_and_unpaired_output_are_refused(validation: str) -> None:
    with ScriptedModel() as model:
        with pytest.raises(openai.BadRequestError, match="Unknown parameter: 'max_tokens'"):
            ask(model, extra_body={"max_tokens": 10})
        with pytest.raises(openai.BadRequestError, match="No tool call found"):
            orphan = {"type": "function_call_output", "call_id": "call_x", "output": ""}
            ask(model, [{"role": "user", "content": "q"}, orphan])
        with pytest.raises(AssertionError, match="max_tokens(.|\n)*No tool call found"):
            model.assert_done()


def test_broken_reply_is_flagged(validation: str) -> None:
    no_tools = reply_text("hi").edited(lambda body: {k: v for k, v in body.items() if k != "tools"})
    with ScriptedModel(no_tools) as model:
        ask(model)  # the SDK is lenient; the stand-in is not
        with pytest.raises(AssertionError, match=r"violates Response(.|\n)*'tools' is a required property"):
            model.assert_done()


def test_unrealistic_script_is_flagged() -> None:
    with ScriptedModel(reply_calls([("search_docs", {"query": "q", "k": "five"}), ("delete_repo", {})])) as model:
        ask(model)
        expected = r"'five' is not of type 'integer'(.|\n)*'delete_repo', which the request did not offer"
        with pytest.raises(AssertionError, match=expected):
            model.assert_done()


def test_pydantic_strict_tool_validates_in_a_request(validation: str, scripted_model: ScriptedModel) -> None:
    scripted_model.script(reply_text("ok"))
    ask(scripted_model)
    sent = scripted_model.bodies()[0]
    assert sent["tools"] == [dict(TOOL)] and sent["tools"][0]["strict"] is True
    assert openai_spec.problems("CreateResponse", sent) == []


needs_spec = pytest.mark.skipif(not openai_spec.spec_available(), reason=openai_spec.SPEC_ABSENT)


@needs_spec
def test_spec_quirk_overlapping_message_branches() -> None:
    """Documents the one tolerated quirk; fails (so the workaround can go) once the spec fixes it."""
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    plain = Draft202012Validator(
        {"$ref": f"{openai_spec.SPEC_URI}#/components/schemas/InputItem"},
        registry=openai_spec._compile(str(openai_spec.spec_path())).registry,
    )
    assert "is valid under each of" in next(plain.iter_errors(message)).message
    assert openai_spec.problems("InputItem", message) == []
    broken = {**message, "content": [{"type": "input_text"}]}
    assert [str(p) for p in openai_spec.problems("InputItem", broken)] == ["content[0]: 'text' is a required property"]


@needs_spec
def test_spec_rejects_null_user_so_replies_omit_it() -> None:
    """The real API has sent `"user": null`; the spec types `user` as a string, so the stand-in leaves it out."""
    with ScriptedModel(reply_text("x")) as model:
        ask(model)
        body = model.replies[0].body
    assert "user" not in body
    assert [p.path for p in openai_spec.problems("Response", {**body, "user": None})] == ["user"]


def test_missing_spec_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    monkeypatch.setenv(openai_spec.SPEC_ENV, str(missing))
    with pytest.raises(openai_spec.SpecMissing, match=str(missing)):
        ScriptedModel()
