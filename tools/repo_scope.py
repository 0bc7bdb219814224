"""Tools over several repositories (issue 38): each tool gets a `repo` argument, and a call is served by the
repository it names, else the run's (its channel's), else by every repository: a search's hits merged into one
list of the best of all of them (MERGED: tools/merged_hits.py), another tool's parts one after the other, each
naming its own.

`scoped(registry, repos)` wraps every tool that reads or writes the project: read tools take an optional `repo`
(null: the channel's repository, or all of them, every issue shown as `owner/b#42` and every doc as `owner/b:
id`); side-effect tools must be given one (when there are several), checked before a card is shown and again
before the write, so a repository removed meanwhile is refused as a value. A context without a `scope` (a triage
run, a filing: already one repository's) runs the tool as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, create_model

from tools import merged_hits, repo_lanes
from tools.code_tools import ranked_code
from tools.context import RepoScope, ToolContext
from tools.docs_tools import ranked_docs
from tools.errors import ToolError
from tools.history_tools import ranked_history
from tools.issue_tools import ranked_issues
from tools.merged_hits import Ranked
from tools.registry import Registry, Tool

if TYPE_CHECKING:
    from atlas.settings import Settings
    from tools.corpus import Corpus

REPO_FREE = frozenset({"calculate", "read_more", "hand_off"})  # nothing of a repository is read
# read in parallel over several repositories (tools/repo_lanes.py): they read SQLite alone, one connection a thread
IN_LANES = frozenset({"search_issues", "get_issue"})
# searches whose hits over several repositories are merged into one list of the best (tools/merged_hits.py)
MERGED: dict[str, Callable[[Any, ToolContext], Ranked | ToolError]] = {
    "search_issues": ranked_issues,
    "search_docs": ranked_docs,
    "search_history": ranked_history,
    "search_code": ranked_code,
}
ISSUE_REF = re.compile(r"(?<![\w/#])#(\d+)\b")
DOC_LINE = re.compile(r"^- (?=\S)", re.MULTILINE)


def scoped(registry: Registry, repos: tuple[str, ...]) -> Registry:
    """`registry` with a `repo` argument on every tool that reads or writes a repository."""
    return registry.mapped(lambda tool: tool if tool.name in REPO_FREE else _scoped(tool, repos))


def _scoped(tool: Tool, repos: tuple[str, ...]) -> Tool:
    listed = ", ".join(repos)
    what = (
        f"The repository to change, one of: {listed}. Required."
        if tool.side_effect
        else f"Only this repository, one of: {listed}; null: the channel's repository, or every one."
    )
    # as a mapping: create_model's overloads type a field tuple differently across pydantic releases
    fields: dict[str, Any] = {"repo": (str | None, Field(default=None, description=what))}
    model: type[BaseModel] = create_model(tool.args_model.__name__, __base__=tool.args_model, **fields)
    inner_model = tool.args_model

    def inner(args: BaseModel) -> BaseModel:
        return inner_model.model_validate(args.model_dump(exclude={"repo"}))

    def fn(args: BaseModel, ctx: ToolContext) -> str | ToolError:
        if ctx.scope is None:
            return tool.fn(inner(args), ctx)
        targets = _targets(tool, getattr(args, "repo", None), ctx.scope)
        if isinstance(targets, ToolError):
            return targets

        ranked = MERGED.get(tool.name) if len(targets) > 1 else None
        if ranked is not None:  # a search over several: one list of the best hits of all of them

            def hits(repo: str) -> Ranked | ToolError:
                opened = _opened(ctx, repo)
                return opened if isinstance(opened, ToolError) else ranked(inner(args), opened)

            found = repo_lanes.each(targets, hits) if tool.name in IN_LANES else [hits(repo) for repo in targets]
            return _merged(list(zip(targets, found, strict=True)), _limit(args))

        def one(repo: str) -> str | ToolError:
            opened = _opened(ctx, repo)
            return opened if isinstance(opened, ToolError) else tool.fn(inner(args), opened)

        outs = repo_lanes.each(targets, one) if tool.name in IN_LANES else [one(repo) for repo in targets]
        parts = list(zip(targets, outs, strict=True))
        return parts[0][1] if tool.side_effect else _joined(parts, len(ctx.scope.repos) > 1)

    def check(args: BaseModel, ctx: ToolContext) -> ToolError | None:
        if ctx.scope is None:
            return tool.check(inner(args), ctx) if tool.check else None
        targets = _targets(tool, getattr(args, "repo", None), ctx.scope)
        if isinstance(targets, ToolError):
            return targets
        opened = _opened(ctx, targets[0]) if tool.side_effect else ctx
        if isinstance(opened, ToolError):
            return opened
        return tool.check(inner(args), opened) if tool.check else None

    fn.__doc__ = tool.description
    return replace(tool, args_model=model, fn=fn, check=check if (tool.check or tool.side_effect) else None)


def _targets(tool: Tool, given: str | None, scope: RepoScope) -> list[str] | ToolError:
    """The repositories one call reaches: the one named, else the run's, else (reads only) every one."""
    listed = ", ".join(scope.repos) or "none"
    if given:
        name = scope.name(given)
        if name is None:
            return ToolError(f"{given} is not a repository this install serves.", f"Use one of: {listed}.")
        return [name]
    if tool.side_effect and len(scope.repos) > 1:  # named in the call, so its approval card names it
        hint = f"this channel is about {scope.repo}" if scope.repo else f"one of: {listed}"
        return ToolError(
            "Say which repository to change: this install serves more than one.",
            f"Call again with repo set ({hint}).",
        )
    return [scope.repo] if scope.repo else list(scope.repos)


def _opened(ctx: ToolContext, repo: str) -> ToolContext | ToolError:
    assert ctx.scope is not None
    opened = ctx.scope.open(repo)
    if isinstance(opened, str):
        return ToolError(opened, "Tell the user; nothing was done there. Another repository may still be searched.")
    corpus, tracker = opened
    return replace(ctx, corpus=corpus, tracker=tracker, scope=None)


def _merged(parts: list[tuple[str, Ranked | ToolError]], limit: int) -> str | ToolError:
    """A search over several repositories: one list of the best `limit` hits of all of them (tools/merged_hits.py),
    a repository that could not be searched left out (every one: the first's error)."""
    served = [(repo, out) for repo, out in parts if isinstance(out, Ranked)]
    refused = [out for _, out in parts if isinstance(out, ToolError)]
    return merged_hits.merged(served, limit, named) if served else refused[0]


def _limit(args: BaseModel) -> int:
    """How many hits a search asked for: `limit` (search_issues, search_history, search_code) or `k` (search_docs)."""
    asked: int = getattr(args, "limit", 0) or getattr(args, "k", 1)
    return asked


def _joined(parts: list[tuple[str, str | ToolError]], many: bool) -> str | ToolError:
    """One repository's result as it is (named when there are several); several, each under its name."""
    if not many:
        return parts[0][1]
    served = [(repo, out) for repo, out in parts if not isinstance(out, ToolError)]
    if not served:
        return parts[0][1]
    return "\n\n".join(f"{repo}:\n{named(repo, out)}" for repo, out in served)


def named(repo: str, text: str) -> str:
    """Issue and doc references of one repository's result named with it: `owner/b#42`, `- owner/b: id`."""
    return DOC_LINE.sub(f"- {repo}: ", ISSUE_REF.sub(lambda m: f"{repo}#{m.group(1)}", text))


def scope_args(arguments: dict[str, Any]) -> str | None:
    """The repository a call's arguments name (an approval card shows it), or None."""
    repo = arguments.get("repo")
    return repo if isinstance(repo, str) and repo else None


def read_scope(settings: Settings, channel: str | None = None) -> RepoScope | None:
    """The configured repositories for reads alone (MCP, lookups): None with one repository or the demo."""
    if not settings.org.many:
        return None
    from tools.corpus import open_corpus

    def open_repo(repo: str) -> tuple[Corpus, None]:
        one = settings.for_repo(repo)
        return open_corpus(one.data_dir, one.home, one.semantic_docs), None

    return RepoScope(settings.repos, settings.org.repo_for_channel(channel), open_repo)


__all__ = ["RepoScope", "named", "read_scope", "scope_args", "scoped"]
