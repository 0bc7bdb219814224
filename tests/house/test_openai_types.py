"""Without OpenAI's spec beside the clone, the Responses stand-in checks payloads with the SDK's types.

These run whether or not `../shared` is there: the `validation` fixture hides it, as in a plain clone.
The checks shared with the spec (a bad request refused, a broken reply flagged) run in both modes in
tests/house/test_responses_standin.py.
"""

from __future__ import annotations

import openai
import pytest

from tests.house.test_responses_standin import ask
from tests.standins import openai_spec, openai_types
from tests.standins.fixtures import validation  # noqa: F401
from tests.standins.responses_api import ScriptedModel, reply_calls, reply_error, reply_text

without_spec = pytest.mark.parametrize("validation", ["sdk_types"], indirect=True)


@without_spec
def test_a_well_formed_exchange_passes(validation: str) -> None:  # noqa: F811
    assert not openai_spec.spec_available()
    with ScriptedModel(reply_calls([("search_docs", {"query": "q", "k": 3})]), reply_text("done")) as model:
        first = ask(model)
        call = first.output[-1]
        ask(
            model,
            [
                {"role": "user", "content": "hi"},
                call.model_dump(exclude_none=True),
                {"type": "function_call_output", "call_id": call.call_id, "output": "found"},
            ],
        )
        model.assert_done()
        assert [openai_types.problems("Response", r.body) for r in model.replies] == [[], []]


@without_spec
def test_an_input_item_missing_a_field_is_named_where_it_is(validation: str) -> None:  # noqa: F811
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": [{"type": "input_text"}]}]}
    assert [str(p) for p in openai_spec.request_problems(body)] == [
        "input[0].content[0]: 'text' is a required property"
    ]


@without_spec
def test_error_replies_are_checked_too(validation: str) -> None:  # noqa: F811
    assert (
        openai_types.problems("ErrorResponse", {"error": {"message": "m", "type": "t", "param": None, "code": None}})
        == []
    )
    assert [str(p) for p in openai_types.problems("ErrorResponse", {"error": {"type": "t"}})] == [
        "error: 'message' is a required property"
    ]
    with ScriptedModel(reply_error(500)) as model, pytest.raises(openai.InternalServerError):
        ask(model)
    assert model.failures == []
