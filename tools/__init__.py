"""Atlas's tool layer: registry, strict schemas, dispatch, the read tools, the docs search engine (docsearch/) and the
trackers (github/)."""

from tools.catalog import run_tool_cli, v2_registry
from tools.context import ResultStash, StashPage, ToolContext
from tools.corpus import Corpus, open_corpus
from tools.dispatch import ToolOutput, dispatch, execute, validate
from tools.errors import ToolError
from tools.legacy import v1_registry
from tools.registry import Registry, Tool

__all__ = [
    "Corpus",
    "Registry",
    "ResultStash",
    "StashPage",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "dispatch",
    "execute",
    "open_corpus",
    "run_tool_cli",
    "v1_registry",
    "v2_registry",
    "validate",
]
