"""The model adapter sends plain JSON through the client's request path: the same request
`responses.create` sends, with the SDK's auth, retries and error types."""

from __future__ import annotations

from typing import Any

import openai

from atlas.settings import Settings
from tests.standins.responses_api import ScriptedModel
from tests.standins.responses_render import response_body
from tests.standins.turns import reply_calls, reply_error, reply_text
from workers.agent.model import ModelRequest, ResponsesModel
from workers.errors import ModelRejected

REQUEST = ModelRequest(
    instructions="Answer.",
    input=[
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "search_docs", "arguments": '{"query": "x"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "found"},
    ],
    tools=[
        {
            "type": "function",
            "name": "search_docs",
            "description": "Search.",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
                "additionalProperties": False,
            },
        }
    ],
)


def test_the_body_and_headers_are_what_responses_create_sends(scripted_model: ScriptedModel) -> None:
    scripted_model.script(reply_text("one"), reply_text("two"))
    model = ResponsesModel(
        Settings(openai_api_key="sk-test", openai_base_url=scripted_model.base_url, model_max_retries=0)
    )
    assert model.respond(REQUEST).text == "one"
    body = model.body(REQUEST)
    model.client.responses.create(**body)  # the SDK's typed path, for comparison
    ours, sdks = scripted_model.requests
    assert ours.body == sdks.body
    assert ours.path == sdks.path == "/v1/responses"
    assert ours.headers["authorization"] == sdks.headers["authorization"] == "Bearer sk-test"
    assert ours.headers["content-type"] == sdks.headers["content-type"]
    scripted_model.assert_done()


def test_the_sdk_retries_and_error_types_still_apply(scripted_model: ScriptedModel) -> None:
    """The client's own backoff retries a 500; a 400 is the SDK's BadRequestError, mapped to ModelRejected."""
    scripted_model.script(reply_error(500), reply_text("after a retry"))
    model = ResponsesModel(
        Settings(openai_api_key="sk-test", openai_base_url=scripted_model.base_url, model_max_retries=1)
    )
    assert model.respond(REQUEST).text == "after a retry" and len(scripted_model.requests) == 2
    scripted_model.script(reply_error(400))
    try:
        model.respond(REQUEST)
    except ModelRejected as exc:
        assert isinstance(exc.__cause__, openai.BadRequestError)
    else:
        raise AssertionError("a 400 must be ModelRejected")
    scripted_model.assert_done()


def test_null_fields_of_output_items_are_not_sent_back(scripted_model: ScriptedModel) -> None:
    """The reply is read as JSON, not built into the SDK's `Response`: its items go back as input
    without their null fields, as the SDK's `exclude_none` dump sent them (the stand-in checks both ways)."""

    def with_nulls(request: dict[str, Any]) -> dict[str, Any]:
        body = response_body(
            reply_calls([("search_docs", {"query": "x"}, "c1")], reasoning=True, text="Looking."), request
        )
        reasoning, message, call = body["output"]
        reasoning["encrypted_content"], message["phase"], call["caller"] = None, None, None  # nullable in the spec
        return body

    scripted_model.script(with_nulls, reply_text("done"))
    model = ResponsesModel(
        Settings(openai_api_key="sk-test", openai_base_url=scripted_model.base_url, model_max_retries=0)
    )
    reply = model.respond(REQUEST)
    assert [item["type"] for item in reply.output] == ["reasoning", "message", "function_call"]
    assert reply.calls == [reply.output[2]] and reply.text == "Looking." and reply.usage.input_tokens > 0
    sent = [*REQUEST.input, *reply.output, {"type": "function_call_output", "call_id": "c1", "output": "found"}]
    assert model.respond(ModelRequest(instructions="Answer.", input=sent, tools=REQUEST.tools)).text == "done"
    for item in scripted_model.requests[1].body["input"][3:6]:
        assert None not in item.values(), item
    scripted_model.assert_done()
