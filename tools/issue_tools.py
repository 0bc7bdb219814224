"""Read tools over the issue tracker: search_issues (ranked list) and get_issue (one issue's parts).

Outputs are compact plain text: they are billed as tokens on every later step of a run.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from atlas import tokens
from tools import merged_hits
from tools.context import ResultStash, ToolContext
from tools.errors import ToolError
from tools.fts_query import terms
from tools.issue_store import Comment, Issue
from tools.merged_hits import Hit, Ranked
from tools.results import cut, read_on

DETAIL_BODY_CHARS = 600
BODY_TOKENS = 560  # about 2,000 characters of English
COMMENT_TOKENS = 200  # about 600 characters
COMMENTS_SHOWN = 8  # the first and the last four: how it started and how it ended
MAX_QUERY_CHARS = 500


class SearchIssuesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(
        description="Words from the problem: symptoms, an ORB-xxxx code, a component, a version like 3.1.0."
    )
    state: Literal["open", "closed"] | None = Field(description="Only open or only closed issues; null for both.")
    limit: Annotated[int, Field(ge=1, le=20, description="How many issues to list (1-20); 10 is a good default.")]
    detail: Literal["concise", "detailed"] = Field(
        description=(
            "concise: number, state and title per line (cheap). detailed: adds labels and the start of the body."
        )
    )


class GetIssueArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    issue_id: int = Field(description="The issue number, e.g. 143 for #143.")
    include: list[Literal["body", "comments", "labels"]] = Field(
        description="Parts to add to the header; [] for the header only."
    )


def search_issues(args: SearchIssuesArgs, ctx: ToolContext) -> str | ToolError:
    """Search the issue tracker (bug reports, questions, feature requests) by relevance. Use it when the user asks
    whether something was reported, what users experienced, or for known bugs and workarounds. Start with detail
    "concise" and open promising issues with get_issue. Not for how Orbit is configured or what an ORB-xxxx code means:
    use search_docs."""
    found = ranked_issues(args, ctx)
    return found if isinstance(found, ToolError) else merged_hits.text(found)


def ranked_issues(args: SearchIssuesArgs, ctx: ToolContext) -> Ranked | ToolError:
    """`search_issues`'s result as hits a search over several repositories merges (tools/merged_hits.py): graded by
    whether the issue holds every word of the query, scored by its bm25 relevance in its own repository."""
    query = args.query.strip()
    if not terms(query[:MAX_QUERY_CHARS]):
        return ToolError(
            "The query has no searchable words.",
            "Use words from the problem, e.g. 'reconnect storm redis' or 'ORB-1101'.",
        )
    found = ctx.corpus.issues.matches(query[:MAX_QUERY_CHARS], args.state, args.limit)
    scope = f" ({args.state})" if args.state else ""
    empty = f'No issues{scope} match "{query}". Try fewer or other words' + (", or state null." if args.state else ".")
    labels = ctx.corpus.issues.labels([m.issue.id for m in found]) if args.detail == "detailed" and found else {}
    hits = tuple(
        Hit(_lines(m.issue, labels.get(m.issue.id, []), args.detail), m.relevance, int(m.every_term)) for m in found
    )
    return Ranked(f'Issues{scope} matching "{query}"', ", best first:", (), hits, empty)


def _lines(issue: Issue, labels: list[str], detail: str) -> tuple[str, ...]:
    if detail != "detailed":
        return (_line(issue),)
    body = " ".join(issue.body.split())
    shown = body if len(body) <= DETAIL_BODY_CHARS else body[:DETAIL_BODY_CHARS].rstrip() + "..."
    return (_line(issue), f"  labels: {', '.join(labels) or '-'}", f"  {shown}")


def get_issue(args: GetIssueArgs, ctx: ToolContext) -> str | ToolError:
    """Read one issue by number: a header (title, state, author, dates, duplicate_of) plus the parts you ask for in
    include: "body", "comments" (first and last four when long), "labels". Use it after search_issues, or when the user
    names an issue number. Not for ORB-xxxx error codes: those are documented, use search_docs."""
    store = ctx.corpus.issues
    issue = store.get(args.issue_id)
    if issue is None:
        low, high, count = store.id_range()
        where = f"Issue ids run from {low} to {high} ({count} issues)." if count else "The tracker has no issues."
        return ToolError(f"No issue #{args.issue_id}.", f"{where} ORB-xxxx codes are documented: call search_docs.")
    include = set(args.include)
    out = [f"#{issue.id} {issue.title}", _header(issue)]
    if "labels" in include:
        out.append(f"labels: {', '.join(store.labels([issue.id])[issue.id]) or '-'}")
    if "body" in include:
        out.append("body:\n" + (cut(issue.body.strip(), BODY_TOKENS, ctx.stash, "body truncated") or "(empty)"))
    if "comments" in include:
        out.append(_comments(store.comments(issue.id), ctx.stash))
    return "\n".join(out)


def _line(issue: Issue) -> str:
    dup = f" (duplicate of #{issue.duplicate_of})" if issue.duplicate_of else ""
    return f"#{issue.id} [{issue.state}] {issue.title}{dup}"


def _header(issue: Issue) -> str:
    parts = [f"state: {issue.state}", f"author: {issue.author or '-'}", f"created: {_day(issue.created_at)}"]
    if issue.closed_at:
        parts.append(f"closed: {_day(issue.closed_at)}")
    if issue.duplicate_of:
        parts.append(f"duplicate of: #{issue.duplicate_of}")
    parts.append(f"comments: {issue.comment_count}")
    return " | ".join(parts)


def _comments(comments: list[Comment], stash: ResultStash | None) -> str:
    """Every comment, or the first and last four of a long thread; whatever is left out or cut is
    stashed whole, and its note names the read_more call that shows it."""
    if not comments:
        return "comments: none"
    numbered = list(enumerate(comments, 1))
    half = COMMENTS_SHOWN // 2
    if len(comments) > COMMENTS_SHOWN:
        first, middle, last = numbered[:half], numbered[half:-half], numbered[-half:]
    else:
        first, middle, last = numbered, [], []
    lines = [f"comments ({len(comments)}):"]
    lines += [_comment(n, c, _cut_comment(c, stash)) for n, c in first]
    if middle:
        lines.append(_left_out(middle, len(comments), stash))
    lines += [_comment(n, c, _cut_comment(c, stash)) for n, c in last]
    return "\n".join(lines)


def _comment(n: int, c: Comment, body: str) -> str:
    """One comment's line: its number in the thread, author, day, then its (possibly cut) body."""
    return f"[{n}] {c.author or '-'}, {_day(c.created_at)}: {body}"


def _cut_comment(c: Comment, stash: ResultStash | None) -> str:
    return cut(c.body.strip(), COMMENT_TOKENS, stash, "comment truncated")


def _left_out(middle: list[tuple[int, Comment]], total: int, stash: ResultStash | None) -> str:
    """The note standing for the middle of a long thread; the middle itself, whole, is stashed."""
    what = f"{len(middle)} comments left out: {middle[0][0]}-{middle[-1][0]} of {total}"
    if stash is None:
        return f"[{what}]"
    text = "\n".join(_comment(n, c, c.body.strip()) for n, c in middle)
    return read_on(stash.put(text), 0, tokens.count(text), what + ", in full")


def _day(stamp: str | None) -> str:
    return stamp[:10] if stamp else "-"
