"""What a tool call is doing, in words ('Searching issues for “redis timeout”'): the line a run's progress
shows for each call, on every platform (Slack's bot/slack/progress.py, Discord's bot/discord/surface.py make
the progress value's tasks with it).

Plain text; each platform escapes it for its own markup. The words are workers/wording.py's.
"""

from __future__ import annotations

import json

from atlas.text import clip
from workers import wording

TITLE_ARG_CHARS = 80
TASK_TITLE_CHARS = 150


def task_title(name: str, arguments: str) -> str:
    """'Searching issues for “redis timeout”': what a tool call is doing, in words."""
    try:
        args = json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        args = {}
    if not isinstance(args, dict):
        args = {}
    query = clip(" ".join(str(args.get("query") or "").split()), TITLE_ARG_CHARS)
    if name == "search_issues":
        state = args.get("state")
        if state in ("open", "closed"):
            title = wording.TASK_SEARCH_ISSUES_STATE.format(state=state, query=query)
        else:
            title = wording.TASK_SEARCH_ISSUES.format(query=query)
    elif name == "get_issue":
        title = wording.TASK_GET_ISSUE.format(number=clip(str(args.get("issue_id", "?")), 12))
    elif name == "search_docs":
        title = wording.TASK_SEARCH_DOCS.format(query=query)
    elif name == "get_doc_section":
        doc = clip(str(args.get("doc_id") or "?"), TITLE_ARG_CHARS)
        heading = args.get("heading")
        if heading:
            title = wording.TASK_GET_DOC_SECTION.format(doc=doc, heading=clip(str(heading), TITLE_ARG_CHARS))
        else:
            title = wording.TASK_GET_DOC.format(doc=doc)
    elif name == "read_more":
        title = wording.TASK_READ_MORE
    else:
        title = wording.TASK_OTHER.format(name=clip(name, 64))
    return clip(title, TASK_TITLE_CHARS)
