"""Read tools over the issue tracker: search_issues (ranked list) and get_issue (one issue's parts).

Outputs are compact plain text: they are billed as tokens on every later step of a run.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.context import ToolContext
from tools.errors import ToolError
from tools.fts_query import terms
from tools.issue_store import Comment, Issue

DETAIL_BODY_CHARS = 600
BODY_CHARS = 2000
COMMENT_CHARS = 600
COMMENTS_SHOWN = 8  # the first and the last four: how it started and how it ended
MAX_QUERY_CHARS = 500


class SearchIssuesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="Words from the problem: symptoms, an ORB-xxxx code, a component, a version like 3.1.0.")
    state: Literal["open", "closed"] | None = Field(description="Only open or only closed issues; null for both.")
    limit: Annotated[int, Field(ge=1, le=20, description="How many issues to list (1-20); 10 is a good default.")]
    detail: Literal["concise", "detailed"] = Field(description="concise: number, state and title per line (cheap). detailed: adds labels and the start of the body.")


class GetIssueArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    issue_id: int = Field(description="The issue number, e.g. 143 for #143.")
    include: list[Literal["body", "comments", "labels"]] = Field(description="Parts to add to the header; [] for the header only.")


def search_issues(args: SearchIssuesArgs, ctx: ToolContext) -> str | ToolError:
    """Search the issue tracker (bug reports, questions, feature requests) by relevance. Use it when the user asks whether something was reported, what users experienced, or for known bugs and workarounds. Start with detail "concise" and open promising issues with get_issue. Not for how Orbit is configured or what an ORB-xxxx code means: use search_docs."""
    query = args.query.strip()
    if not terms(query[:MAX_QUERY_CHARS]):
        return ToolError("The query has no searchable words.", "Use words from the problem, e.g. 'reconnect storm redis' or 'ORB-1101'.")
    found = ctx.corpus.issues.search(query[:MAX_QUERY_CHARS], args.state, args.limit)
    scope = f" ({args.state})" if args.state else ""
    if not found:
        return f'No issues{scope} match "{query}". Try fewer or other words' + (", or state null." if args.state else ".")
    lines = [f'Issues{scope} matching "{query}", best first:']
    labels = ctx.corpus.issues.labels([i.id for i in found]) if args.detail == "detailed" else {}
    for issue in found:
        lines.append(_line(issue))
        if args.detail == "detailed":
            lines.append(f"  labels: {', '.join(labels.get(issue.id, [])) or '-'}")
            body = " ".join(issue.body.split())
            lines.append(f"  {body if len(body) <= DETAIL_BODY_CHARS else body[:DETAIL_BODY_CHARS].rstrip() + '...'}")
    return "\n".join(lines)


def get_issue(args: GetIssueArgs, ctx: ToolContext) -> str | ToolError:
    """Read one issue by number: a header (title, state, author, dates, duplicate_of) plus the parts you ask for in include: "body", "comments" (first and last four when long), "labels". Use it after search_issues, or when the user names an issue number. Not for ORB-xxxx error codes: those are documented, use search_docs."""
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
        out.append("body:\n" + (_clip(issue.body.strip(), BODY_CHARS, "body") or "(empty)"))
    if "comments" in include:
        out.append(_comments(store.comments(issue.id)))
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


def _comments(comments: list[Comment]) -> str:
    if not comments:
        return "comments: none"
    if len(comments) <= COMMENTS_SHOWN:
        shown, note = list(enumerate(comments, 1)), ""
    else:
        half = COMMENTS_SHOWN // 2
        numbered = list(enumerate(comments, 1))
        shown = numbered[:half] + numbered[-half:]
        left = len(comments) - COMMENTS_SHOWN
        note = f"[{left} comments left out: {half + 1}-{len(comments) - half} of {len(comments)}]"
    lines = [f"comments ({len(comments)}):"]
    for n, c in shown:
        if note and n == len(comments) - COMMENTS_SHOWN // 2 + 1:
            lines.append(note)
        lines.append(f"[{n}] {c.author or '-'}, {_day(c.created_at)}: {_clip(c.body.strip(), COMMENT_CHARS, 'comment')}")
    return "\n".join(lines)


def _clip(text: str, limit: int, what: str) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()}... [{what} cut: {limit:,} of {len(text):,} characters]"


def _day(stamp: str | None) -> str:
    return stamp[:10] if stamp else "-"
