"""Which tools a model call is offered (issue 40): every call carried all 16 definitions (about 3,700 tokens),
though most questions need the docs and issue tools alone.

A call is offered the tools in no group below (the docs and issue tools, search_history, calculate, read_more,
link_issue, which the instructions ask for whenever an issue found is the question's own, and any tool added later),
plus a group when the person's own words ask for what it does (the code tools for code, files, functions; the history
tools for commits, pull requests, releases, versions; the tracker actions for labelling, commenting, closing, filing),
plus every tool the run has called and the follow-ups of those calls (a pull request read names files to read). Code
and history were one group (878 tokens) until a question naming a version took a first call to 2,998 tokens.
Decided from the transcript alone, so a resumed or re-delivered run is offered what it was; a tool once called stays
offered while its call is in the transcript (the Responses API pairs each call with an offered tool's definition).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from atlas.text import text_of

# search_history stays in no group: it holds the solved threads maintainers approved (workers/knowledge), which answer
# questions worded like any other
CODE = frozenset({"search_code", "read_file"})
HISTORY = frozenset({"get_history_item", "find_fix"})
KNOWLEDGE = CODE | HISTORY
ACTIONS = frozenset({"add_labels", "post_comment", "close_issue", "create_issue"})
_FILES = r"[\w/.-]+\.(?:py|pyi|js|ts|tsx|go|rs|rb|java|kt|c|h|cpp|toml|ya?ml|json|ini|cfg|md|sh)"
WORDS = {
    CODE: re.compile(
        r"\b(?:(?<!error )(?<!orb )(?<!exit )(?<!status )code|codebase|source code|sources?|files?|functions?|methods?"
        r"|class(?:es)?|modules?|implement\w*|repos?|repository|repositories|diffs?|patch(?:es|ed)?|where "
        r"(?:is|are|does|do)|" + _FILES + r")\b",
        re.IGNORECASE,
    ),
    HISTORY: re.compile(
        r"\b(?:pull requests?|prs?|commits?|merged?|releases?|released|changelogs?|diffs?|patch(?:es|ed)?|regress\w*"
        r"|introduc\w*|history|discussions?|fixed (?:in|by)|which (?:version|release)|since when|when was"
        r"|v?\d+\.\d+\.\d+|v\d+\.\d+)\b",
        re.IGNORECASE,
    ),
    ACTIONS: re.compile(
        r"\b(?:label (?:it|this|that|them|issue|#?\d+)|add (?:a |the )?(?:[\w:-]+ )?labels?|(?:post|add|leave|write) "
        r"(?:a |an )?(?:comment|reply|note)|comment on|close (?:it|this|that|them|issue|#?\d+)|reopen\w*"
        r"|file (?:a|an|it|this|that|the)\b|(?:open|create|raise) (?:a|an) (?:new )?issue|new issue"
        r"|report (?:it|this|that)"
        r"|mark (?:it|this|them|#?\d+) as|duplicate of|link (?:it|this|that|them|issue|#?\d+)|notify (?:me|us)"
        r"|let (?:me|us) know when|tell (?:#?\d+|them|the reporter|the "
        r"author|everyone)|let #?\d+ know|thank \w+ (?:on|in) #?\d+|triage)\b",
        re.IGNORECASE,
    ),
}
FOLLOW_UPS: dict[str, tuple[str, ...]] = {"get_history_item": ("read_file",)}  # what a call brings in after it


def asked(items: Sequence[Mapping[str, Any]]) -> str:
    """What the person wrote in the run: every user message's text."""
    return "\n".join(
        text_of(i.get("content")) for i in items if i.get("type", "message") == "message" and i.get("role") == "user"
    )


def offered_names(names: Sequence[str], items: Sequence[Mapping[str, Any]]) -> set[str]:
    """Of the registered tools `names`, those a call on the transcript `items` is offered."""
    grouped = set().union(*WORDS)
    words = asked(items)
    called = {str(i.get("name")) for i in items if i.get("type") == "function_call"}
    keep = {n for n in names if n not in grouped} | called
    for group, pattern in WORDS.items():
        if pattern.search(words):
            keep |= group
    for name in called:
        keep.update(FOLLOW_UPS.get(name, ()))
    return keep & set(names) | called


def offered(definitions: Sequence[dict[str, Any]], items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The definitions (registry order) a model call on `items` is offered."""
    keep = offered_names([str(d["name"]) for d in definitions], items)
    return [d for d in definitions if d["name"] in keep]
