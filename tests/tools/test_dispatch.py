"""Dispatch never raises: unknown tools, bad JSON, invalid fields and crashing tools become errors."""

from __future__ import annotations

import json
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from tests.support.tools_dataset import make_dataset
from tools import ToolContext, ToolError, ToolOutput, dispatch, execute, open_corpus, v1_registry, v2_registry, validate
from tools.registry import Registry


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    root = make_dataset(tmp_path_factory.mktemp("data"))
    return ToolContext(corpus=open_corpus(root), run_id="run-42")


class NoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def crashing_registry() -> Registry:
    registry = Registry()

    @registry.tool()
    def boom(args: NoArgs, ctx: ToolContext) -> str:
        """Always fails."""
        raise RuntimeError("secret internal detail")

    @registry.tool()
    def wrong_type(args: NoArgs, ctx: ToolContext) -> str:
        """Returns a number."""
        return 42  # type: ignore[return-value]

    return registry


def test_unknown_tool_lists_the_available_ones(ctx: ToolContext) -> None:
    out = dispatch(v2_registry(), "lookup_issue", '{"q": "x"}', ctx)
    assert not out.ok
    assert out.text.startswith("Error: Unknown tool 'lookup_issue'.\nHint: Available tools: ")
    for name in v2_registry().names():
        assert name in out.text


@pytest.mark.parametrize(
    "arguments,fragment",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('"text"', "must be a JSON object"),
    ],
)
def test_malformed_arguments(ctx: ToolContext, arguments: str, fragment: str) -> None:
    out = dispatch(v2_registry(), "search_docs", arguments, ctx)
    assert not out.ok and fragment in out.text
    assert "query" in out.text and "k" in out.text  # the hint names the fields


@pytest.mark.parametrize(
    "args,fragment",
    [
        ({"query": "x"}, "k is required"),
        ({"query": "x", "k": 5, "extra": 1}, "extra is not a field"),
        ({"query": "x", "k": "many"}, "k: Input should be a valid integer"),
        ({"query": "x", "k": 0}, "k must be >= 1"),
        ({"query": "x", "k": 11}, "k must be <= 10"),
    ],
)
def test_invalid_fields_are_named(ctx: ToolContext, args: dict, fragment: str) -> None:
    out = dispatch(v2_registry(), "search_docs", json.dumps(args), ctx)
    assert not out.ok
    assert fragment in out.text
    assert out.text.endswith("Hint: Fix the field and call again.")


def test_literal_field_lists_choices(ctx: ToolContext) -> None:
    args = {"query": "x", "state": "merged", "limit": 5, "detail": "concise"}
    out = dispatch(v2_registry(), "search_issues", json.dumps(args), ctx)
    assert not out.ok and "state" in out.text and "'open'" in out.text


def test_validate_returns_the_model(ctx: ToolContext) -> None:
    args = validate(v2_registry(), "calculate", '{"expression": "1+1"}')
    assert isinstance(args, BaseModel) and args.expression == "1+1"  # type: ignore[attr-defined]
    assert execute(v2_registry(), "calculate", args, ctx) == ToolOutput("1+1 = 2", True)


def test_crash_is_a_generic_error_and_logged_with_run_id(ctx: ToolContext, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="atlas.tools"):
        out = dispatch(crashing_registry(), "boom", "{}", ctx)
    assert not out.ok and out.text.startswith("Error: The tool failed unexpectedly.")
    assert "secret internal detail" not in out.text
    record = next(r for r in caplog.records if r.name == "atlas.tools")
    assert "run-42" in record.getMessage() and record.exc_info is not None


def test_wrong_return_type_is_an_error(ctx: ToolContext) -> None:
    out = dispatch(crashing_registry(), "wrong_type", "{}", ctx)
    assert not out.ok


def test_tool_error_value_is_rendered(ctx: ToolContext) -> None:
    out = dispatch(v2_registry(), "get_issue", '{"issue_id": 424242, "include": []}', ctx)
    assert not out.ok and out.text.startswith("Error: No issue #424242.\nHint: ")
    assert ToolError("a", "b").render() == "Error: a\nHint: b"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
NAMES = v2_registry().names() + v1_registry().names()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.one_of(st.sampled_from(NAMES), st.text(max_size=20)), arguments=st.text(max_size=200))
def test_dispatch_never_raises_on_random_strings(ctx: ToolContext, name: str, arguments: str) -> None:
    for registry in (v2_registry(), v1_registry()):
        out = dispatch(registry, name, arguments, ctx)
        assert isinstance(out, ToolOutput) and isinstance(out.text, str) and out.text


field_names = st.sampled_from(
    [
        "query",
        "k",
        "doc_id",
        "heading",
        "state",
        "limit",
        "detail",
        "issue_id",
        "include",
        "expression",
        "ref",
        "offset",
        "q",
        "id",
        "expr",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(NAMES), payload=st.dictionaries(field_names, json_values, max_size=5))
def test_dispatch_never_raises_on_random_json(ctx: ToolContext, name: str, payload: dict) -> None:
    registry = v2_registry() if name in v2_registry().names() else v1_registry()
    out = dispatch(registry, name, json.dumps(payload), ctx)
    assert isinstance(out, ToolOutput) and out.text
    if not out.ok:
        assert out.text.startswith("Error: ") and "\nHint: " in out.text
