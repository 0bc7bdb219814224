"""Registry: declaration rules, generated strict definitions, the v1/v2 toolsets."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from tools import ToolContext, ToolError, v1_registry, v2_registry
from tools.errors import RegistryError
from tools.registry import Registry


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


def test_tool_is_declared_from_annotation_and_docstring() -> None:
    registry = Registry()

    @registry.tool(side_effect=True)
    def echo(args: EchoArgs, ctx: ToolContext) -> str | ToolError:
        """Repeat the text."""
        return args.text

    tool = registry.get("echo")
    assert tool is not None
    assert tool.args_model is EchoArgs
    assert tool.description == "Repeat the text."
    assert tool.side_effect is True
    assert registry.names() == ["echo"]
    assert registry.get("nope") is None


def test_a_wrapped_docstring_is_one_line_of_description() -> None:
    """The source wraps at 120 columns; the model reads the docstring as one paragraph, as it was before."""
    registry = Registry()

    @registry.tool()
    def echo(args: EchoArgs, ctx: ToolContext) -> str | ToolError:
        """Repeat the text. Use it when asked
        to repeat. Not for anything else."""
        return args.text

    tool = registry.get("echo")
    assert tool is not None
    assert tool.description == "Repeat the text. Use it when asked to repeat. Not for anything else."


def test_duplicate_name_is_an_error() -> None:
    registry = Registry()

    def first(args: EchoArgs, ctx: ToolContext) -> str:
        """One."""
        return ""

    def second(args: EchoArgs, ctx: ToolContext) -> str:
        """Two."""
        return ""

    registry.tool(name="same")(first)
    with pytest.raises(RegistryError, match="duplicate"):
        registry.tool(name="same")(second)


def test_declaration_mistakes_are_errors() -> None:
    registry = Registry()

    def undocumented(args: EchoArgs, ctx: ToolContext) -> str:
        return ""

    def untyped(args, ctx):  # type: ignore[no-untyped-def]
        """Has no model."""
        return ""

    def fine(args: EchoArgs, ctx: ToolContext) -> str:
        """Fine."""
        return ""

    with pytest.raises(RegistryError, match="docstring"):
        registry.tool()(undocumented)
    with pytest.raises(RegistryError, match="pydantic"):
        registry.tool()(untyped)
    with pytest.raises(RegistryError, match="must match"):
        registry.tool(name="has space")(fine)


def test_definitions_are_strict_responses_function_tools() -> None:
    definitions = v2_registry().definitions()
    assert [d["name"] for d in definitions] == [
        "search_docs",
        "get_doc_section",
        "search_issues",
        "get_issue",
        "search_code",
        "read_file",
        "search_history",
        "get_history_item",
        "find_fix",
        "calculate",
        "read_more",
        "add_labels",
        "post_comment",
        "close_issue",
        "create_issue",
        "link_issue",
    ]
    for d in definitions:
        assert d["type"] == "function" and d["strict"] is True
        assert d["description"] and d["parameters"]["additionalProperties"] is False
        assert sorted(d["parameters"]["required"]) == sorted(d["parameters"]["properties"])


def test_v1_toolset_names() -> None:
    assert v1_registry().names() == ["search", "get", "lookup_issue", "get_comments", "calc"]


def test_descriptions_say_when_and_when_not() -> None:
    for tool in (v2_registry().get(n) for n in v2_registry().names()):
        assert tool is not None
        assert "Use it" in tool.description and "Not for" in tool.description, tool.name
        assert len(tool.description) < 600, tool.name
