"""The toolsets Atlas offers a model, and the `atlas tool` entry point that runs one call by hand."""

from __future__ import annotations

from pathlib import Path

from tools import side_effects
from tools.calculate import calculate
from tools.context import ToolContext
from tools.corpus import open_corpus
from tools.dispatch import ToolOutput, dispatch
from tools.docs_tools import get_doc_section, search_docs
from tools.issue_tools import get_issue, search_issues
from tools.read_more import read_more
from tools.registry import Registry


def v2_registry() -> Registry:
    """The current read tools: search_docs, get_doc_section, search_issues, get_issue, calculate, read_more,
    then the side-effect tools (add_labels, post_comment, close_issue), which run only after approval."""
    registry = Registry()
    for fn in (search_docs, get_doc_section, search_issues, get_issue, calculate, read_more):
        registry.tool()(fn)
    return side_effects.register(registry)


def run_tool_cli(data_dir: Path, name: str, arguments: str) -> ToolOutput:
    """What `atlas tool NAME 'JSON'` prints (exactly the text the model would read), and whether it succeeded.

    Raises DatasetError (datasets.tracker_db) when the data folder is missing or malformed.
    """
    ctx = ToolContext(corpus=open_corpus(data_dir), stash=None, run_id="cli")
    return dispatch(v2_registry(), name, arguments, ctx)
