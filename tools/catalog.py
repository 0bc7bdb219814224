"""The toolsets Atlas offers a model, and the `atlas tool` entry point that runs one call by hand."""

from __future__ import annotations

import functools
from pathlib import Path

from atlas.project_settings import ORBIT, Project
from tools import issue_filing, side_effects
from tools.calculate import calculate
from tools.code_tools import read_file, search_code
from tools.context import ToolContext
from tools.corpus import open_corpus
from tools.dispatch import ToolOutput, dispatch
from tools.docs_tools import get_doc_section, search_docs
from tools.history_tools import find_fix, get_history_item, search_history
from tools.issue_tools import get_issue, search_issues
from tools.read_more import read_more
from tools.registry import Registry

# Orbit's own words in the tool descriptions, and what they become for another project.
ORBIT_WORDS = (
    ("ORB-xxxx error codes", "error codes"),
    ("an ORB-xxxx code", "an error code"),
    ("ORB-xxxx codes", "error codes"),
    ("an ORB code", "an error code"),
    ("'ORB-1202'", "an error code"),
    ("'ORB-1101'", "an error code"),
    ("ORB-xxxx", "error code"),
)


READ_TOOLS = (
    search_docs,
    get_doc_section,
    search_issues,
    get_issue,
    search_code,
    read_file,
    search_history,
    get_history_item,
    find_fix,
    calculate,
    read_more,
)


KNOWLEDGE_TOOLS = frozenset({"search_code", "read_file", "search_history", "get_history_item", "find_fix"})


def v2_registry(project: Project | None = None, knowledge: bool = True) -> Registry:
    """The current read tools: search_docs, get_doc_section, search_issues, get_issue, the knowledge tools
    (search_code, read_file, search_history, get_history_item, find_fix), calculate, read_more, then the
    side-effect tools (add_labels, post_comment, close_issue, create_issue), which run only after approval, and
    link_issue (writes nothing on the tracker; not in `read_registry`, so MCP never serves it).
    For a project other than Orbit, the descriptions name it instead of Orbit and its ORB codes. Without
    `knowledge` (a data folder with no code, PRs, releases or discussions) the knowledge tools are left out:
    every request would pay for their definitions, and every call of one would fail."""
    return issue_filing.register(
        side_effects.register(read_registry(project, frozenset() if knowledge else KNOWLEDGE_TOOLS))
    )


def read_registry(project: Project | None = None, without: frozenset[str] = frozenset()) -> Registry:
    """The read tools alone (what the MCP server serves), less the ones named in `without`."""
    registry = Registry(None if project is None or project == ORBIT else functools.partial(_renamed, project=project))
    for fn in READ_TOOLS:
        if fn.__name__ not in without:
            registry.tool()(fn)
    return registry


def _renamed(text: str, *, project: Project) -> str:
    for old, new in ORBIT_WORDS:
        text = text.replace(old, new)
    return text.replace("Orbit", project.name)


def run_tool_cli(
    data_dir: Path, name: str, arguments: str, home: Path | None = None, semantic: bool = False
) -> ToolOutput:
    """What `atlas tool NAME 'JSON'` prints (exactly the text the model would read), and whether it succeeded.

    Raises DatasetError (datasets.tracker_db) when the data folder is missing or malformed.
    """
    ctx = ToolContext(corpus=open_corpus(data_dir, home, semantic), stash=None, run_id="cli")
    return dispatch(v2_registry(), name, arguments, ctx)
