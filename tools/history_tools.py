"""Read tools over the project's history: search_history (pull requests, releases, discussions),
get_history_item (one of them in full) and find_fix (an issue to the PRs and the release that fixed it)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import merged_hits
from tools.context import ToolContext
from tools.docsearch.terms import tokens as stems
from tools.errors import ToolError
from tools.fts_query import searchable
from tools.knowledge_store import Item, KnowledgeStore
from tools.merged_hits import Hit, Ranked
from tools.results import cut
from tools.solved_threads import lines as solved_lines

MAX_QUERY_CHARS = 300
SNIPPET_CHARS = 320
ITEM_TOKENS = 500
NAMES = {"pull_request": "PR", "release": "release", "discussion": "discussion"}
NOTHING = ToolError(
    "No pull requests, releases or discussions are synced for this project.",
    "Answer from search_docs or search_issues instead.",
)


class SearchHistoryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="Words to look for: a symptom, an ORB-xxxx code, a version, a feature.")
    kind: Literal["pull_request", "release", "discussion"] | None = Field(
        description="Only this kind; null for all three."
    )
    limit: Annotated[int, Field(ge=1, le=10, description="How many to list (1-10); 5 is a good default.")]


class GetHistoryItemArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["pull_request", "release", "discussion"] = Field(
        description="What it is, as search_history printed it."
    )
    id: str = Field(description="A PR or discussion number ('242') or a release tag ('v3.1.1').")


class FindFixArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    issue_id: int = Field(description="The issue number, e.g. 174 for #174.")


def search_history(args: SearchHistoryArgs, ctx: ToolContext) -> str | ToolError:
    """Search the project's pull requests (what changed and why), release notes (what shipped when), GitHub
    Discussions (community questions, with the accepted answer) and solved chat threads maintainers approved. Each
    hit: kind, number or tag, title, date, URL and the matching lines. Use it for "which release fixed / added X",
    "why was X changed", or questions the community already discussed. Not for bug reports: use search_issues; not
    for how-to: use search_docs."""
    found = ranked_history(args, ctx)
    return found if isinstance(found, ToolError) else merged_hits.text(found)


def ranked_history(args: SearchHistoryArgs, ctx: ToolContext) -> Ranked | ToolError:
    """`search_history`'s result as hits a search over several repositories merges (tools/merged_hits.py): graded by
    how the item matched (a PR changing a file the query names, every word, some), scored by its bm25 relevance in
    its own repository. The approved solved threads are the install's, not a repository's: they are notes, shown
    once before the hits."""
    store = ctx.corpus.knowledge
    has_items = store is not None and store.item_count() > 0
    if not has_items and ctx.solved is None:
        return NOTHING
    query = searchable(args.query, MAX_QUERY_CHARS, "words from the question, e.g. 'reconnect storm' or 'ORB-1202'")
    if isinstance(query, ToolError):
        return query
    solved = ctx.solved.search(query, args.limit) if ctx.solved is not None and args.kind is None else []
    found = store.item_matches(query, args.kind, args.limit) if store is not None and has_items else []
    scope = f" ({args.kind})" if args.kind else ""
    if not found and not solved and not has_items:
        return NOTHING
    empty = f'Nothing{scope} matches "{query}". Try other words' + (", or kind null." if args.kind else ".")
    notes = tuple(line for entry in solved for line in solved_lines(entry, SNIPPET_CHARS * 2))
    hits = tuple(
        Hit(("- " + header(m.item), *(f"  {ln}" for ln in _snippet(m.item, query))), m.relevance, m.grade)
        for m in found
    )  # what a maintainer approved from a solved thread (workers/knowledge/) comes first, as notes
    return Ranked(
        f'History{scope} matching "{query}"', ", best first (read one with get_history_item):", notes, hits, empty
    )


def get_history_item(args: GetHistoryItemArgs, ctx: ToolContext) -> str | ToolError:
    """Read one pull request (description, the issues it closes, changed files), release (its notes) or discussion
    (question, accepted answer, replies) in full. Use it after search_history or find_fix, or when the user names a PR,
    release or discussion. Not for issues: use get_issue."""
    store = ctx.corpus.knowledge
    if store is None or store.item_count() == 0:
        return NOTHING
    item = store.item(args.kind, args.id)
    if item is None:
        known = store.idents(args.kind)
        listed = ", ".join(known[-12:]) if known else "none"
        shown = args.id if len(args.id) <= 40 else args.id[:37] + "..."
        return ToolError(f"No {NAMES[args.kind]} '{shown}'.", f"Known: {listed}. Call search_history to find one.")
    return f"{header(item)}\n{cut(_full(item), ITEM_TOKENS, ctx.stash, 'text truncated')}"


def find_fix(args: FindFixArgs, ctx: ToolContext) -> str | ToolError:
    """Follow an issue to the pull requests that fixed it (linked or 'fixes #N') and the release that shipped the fix.
    Use it for "is #N fixed / in which version / which PR". Not for what the issue says: use get_issue."""
    store = ctx.corpus.knowledge
    if store is None or store.item_count() == 0:
        return NOTHING
    fixing, mentioning = store.fixes_of(args.issue_id)
    if not fixing and not mentioning:
        return (
            f"No pull request links or mentions #{args.issue_id}. It may be unfixed, or fixed "
            "without a reference: try search_history with its symptoms."
        )
    lines = [f"#{args.issue_id}:"]
    for pull in fixing:
        lines.append(f"- fixed by {header(pull)}")
        lines.append(f"  shipped in: {_release_of(store, pull, args.issue_id)}")
    lines += [f"- mentioned by {header(pull)}" for pull in mentioning]
    return "\n".join(lines)


def header(item: Item) -> str:
    """One line naming an item: 'PR #242 [merged 2025-10-25] Title (fixes #174) URL'."""
    day = (item.date or "")[:10] or "-"
    if item.kind == "pull_request":
        state = f"{item.state} {day}" if item.state == "merged" else (item.state or "open")
        fixes = f" (fixes {', '.join(f'#{n}' for n in item.fixes)})" if item.fixes else ""
        return f"PR #{item.number} [{state}] {item.title}{fixes} {item.url or ''}".rstrip()
    if item.kind == "release":
        return f"release {item.tag} [{day}] {item.title} {item.url or ''}".rstrip()
    category = item.extra.get("category") or "-"
    return f"discussion #{item.number} [{category}, {item.state}, {day}] {item.title} {item.url or ''}".rstrip()


def _release_of(store: KnowledgeStore, pull: Item, issue: int) -> str:
    """The first release whose notes name the PR or the issue; else the first published after the merge, said to
    be a guess."""
    releases = store.releases()
    named = [r for r in releases if pull.number in r.mentions or issue in r.mentions]
    if named:
        return header(named[0])
    merged = str(pull.extra.get("merged_at") or "")
    later = [r for r in releases if merged and (r.date or "") > merged]
    if later:
        return header(later[0]) + " (the first release after the merge; its notes do not name it)"
    return "no release yet" if merged else "not merged"


def _snippet(item: Item, query: str) -> list[str]:
    """The lines of the item that share most words with the query (a discussion's answer first)."""
    answer = item.extra.get("answer") if item.kind == "discussion" else None
    text = (
        (f"accepted answer by {answer.get('author')}: {answer.get('body')}" if isinstance(answer, dict) else "")
        + "\n"
        + item.body
    )
    if item.kind == "pull_request":  # a question naming a file: the changed path is the evidence
        text += "".join(f"\nchanged {path}" for path in item.extra.get("files") or [])
    wanted = set(stems(query))
    candidates = _units(text)
    scored = sorted(((len(wanted & set(stems(ln))), -i, ln) for i, ln in enumerate(candidates)), reverse=True)
    best = [ln for score, _, ln in scored[:2] if score > 0] or candidates[:1]
    return [ln if len(ln) <= SNIPPET_CHARS else ln[: SNIPPET_CHARS - 3] + "..." for ln in best]


def _units(text: str) -> list[str]:
    """Lines of text with a wrapped list item joined back into one line; headings left out."""
    units: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if units and line[:1].isspace() and units[-1].startswith(("- ", "* ")):
            units[-1] += " " + line.strip()
        else:
            units.append(line.strip())
    return units


def _full(item: Item) -> str:
    if item.kind == "pull_request":
        files = ", ".join(item.extra.get("files") or []) or "-"
        return f"author: {item.author or '-'} | files: {files}\n{item.body.strip()}"
    if item.kind == "discussion":
        answer = item.extra.get("answer")
        parts = [f"question by {item.author or '-'}:\n{item.body.strip()}"]
        if isinstance(answer, dict):
            parts.append(f"accepted answer by {answer.get('author')}:\n{str(answer.get('body') or '').strip()}")
        for reply in (item.extra.get("replies") or [])[:4]:
            parts.append(f"reply by {reply.get('author')}: {str(reply.get('body') or '').strip()}")
        return "\n\n".join(parts)
    return item.body.strip()
