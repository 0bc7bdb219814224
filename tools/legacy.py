"""The v1 toolset, kept only for the comparison benchmark: vague names and descriptions, raw dumps.

`lookup_issue` returns whole matching issues (full bodies, every comment) as JSON: the design that
made v1 cost thousands of tokens per call. Do not give this registry to a real run.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict

from tools.calculate import evaluate, format_number
from tools.context import ToolContext
from tools.errors import CalculationError, ToolError
from tools.registry import Registry

LOOKUP_LIMIT = 5


class QueryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    q: str


class DocIdArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str


class IssueIdArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int


class ExprArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expr: str


def search(args: QueryArgs, ctx: ToolContext) -> str | ToolError:
    """Search."""
    hits = ctx.corpus.docs.search(args.q, 5)
    pages = ctx.corpus.docs.pages
    out = []
    for hit in hits:
        page = pages[hit.doc_id]
        text = next((s.text for s in page.sections if s.heading == hit.heading), page.intro)
        out.append({"id": hit.doc_id, "title": hit.title, "section": hit.heading, "text": text})
    return json.dumps(out, indent=2)


def get(args: DocIdArgs, ctx: ToolContext) -> str | ToolError:
    """Get a document."""
    page = ctx.corpus.docs.pages.get(args.id)
    if page is None:
        return ToolError("not found", "Try again.")
    parts = [f"# {page.title}", page.intro] + [f"## {s.heading}\n{s.text}" for s in page.top()]
    return "\n\n".join(parts)


def lookup_issue(args: QueryArgs, ctx: ToolContext) -> str | ToolError:
    """Look up issues."""
    store = ctx.corpus.issues
    found = store.search(args.q, None, LOOKUP_LIMIT)
    labels = store.labels([i.id for i in found])
    out = []
    for issue in found:
        record = {
            "id": issue.id,
            "title": issue.title,
            "state": issue.state,
            "author": issue.author,
            "created_at": issue.created_at,
            "closed_at": issue.closed_at,
            "duplicate_of": issue.duplicate_of,
            "labels": labels[issue.id],
            "body": issue.body,
            "comments": [
                {"author": c.author, "body": c.body, "created_at": c.created_at, "position": c.position}
                for c in store.comments(issue.id)
            ],
        }
        out.append(record)
    return json.dumps(out, indent=2)


def get_comments(args: IssueIdArgs, ctx: ToolContext) -> str | ToolError:
    """Get comments."""
    if ctx.corpus.issues.get(args.id) is None:
        return ToolError("not found", "Try again.")
    return json.dumps([c.__dict__ for c in ctx.corpus.issues.comments(args.id)], indent=2)


def calc(args: ExprArgs, ctx: ToolContext) -> str | ToolError:
    """Calculator."""
    try:
        return format_number(evaluate(args.expr))
    except CalculationError as exc:
        return ToolError(str(exc), "Try again.")


def v1_registry() -> Registry:
    """The legacy toolset: search, get, lookup_issue, get_comments, calc."""
    registry = Registry()
    for fn in (search, get, lookup_issue, get_comments, calc):
        registry.tool()(fn)
    return registry
