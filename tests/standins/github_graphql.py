"""The stand-in's GraphQL endpoint (`POST /graphql`; `/api/graphql` under GitHub Enterprise's `/api/v3`).

GitHub publishes no OpenAPI description of its GraphQL API; its schema is SDL. `SCHEMA` is the part of it Atlas reads
(`Repository.discussions` and what a discussion holds: tests/standins/github_graphql_schema.py), with the names,
argument lists and nullability of GitHub's own "Using the GraphQL API for Discussions" reference, and `Repository.issue`
with its timeline's duplicate marks (tests/standins/github_graphql_issues.py). Every query is parsed and validated
against it by graphql-core (the reference implementation), so a field GitHub does not have is an error (recorded in
`violations`, as a REST request outside the description is), and then executed over the stand-in's discussions, so the
reply has exactly the shape the query asked for. As GitHub does: connections need `first` or `last` (1..100), cursors
are opaque, errors come back with HTTP 200 and an `errors` list, a token without the Discussions permission gets a
FORBIDDEN error, and with `api.graphql_limited` the next queries get RATE_LIMITED (`x-ratelimit-remaining: 0`).
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from graphql import GraphQLError, build_schema, graphql_sync

from tests.standins import github_graphql_issues as issues
from tests.standins import github_graphql_schema

if TYPE_CHECKING:
    from tests.standins.github_api import GitHubAPI
    from tests.standins.github_repo import Repo

PATHS = ("/graphql", "/api/graphql")
MAX_NODES = 100

SCHEMA = build_schema(github_graphql_schema.SDL + issues.SDL)


def serve(api: GitHubAPI, token: str, body: Any) -> tuple[int, Any]:
    """One GraphQL request: (status, JSON reply), as GitHub answers it."""
    if api.tokens.get(token) is None:
        return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/graphql"}
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return 400, {"message": "Problems parsing JSON", "documentation_url": "https://docs.github.com/graphql"}
    if api.graphql_limited > 0:  # GitHub: 200 with a RATE_LIMITED error once the hour's points are spent
        api.graphql_limited -= 1
        return 200, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for user ID 1."}]}
    context = {"api": api, "token": token}
    with api.repo.lock:
        result = graphql_sync(
            SCHEMA,
            body["query"],
            root_value=_Root(),
            context_value=context,
            variable_values=body.get("variables"),
            type_resolver=_type_of,
        )
    reply: dict[str, Any] = {}
    if result.data is not None:
        reply["data"] = result.data
    if result.errors:
        reply["errors"] = [_error(e) for e in result.errors]
        if result.data is None:  # the query itself is wrong: GitHub would refuse it too
            api.violations.extend(f"graphql: {e.message}" for e in result.errors)
    return 200, reply


def _type_of(value: Any, *_: Any) -> str:
    """The concrete type of an abstract one: what a node says it is (`__typename`), else a User (an Actor)."""
    return str(value.get("__typename") or "User") if isinstance(value, dict) else "User"


def _error(error: GraphQLError) -> dict[str, Any]:
    """GitHub's error shape: message, locations, path, and a `type` (FORBIDDEN, NOT_FOUND, ...) when it has one."""
    out = error.formatted
    original = error.original_error
    if isinstance(original, _Typed):
        out["type"] = original.type
    return dict(out)


class _Typed(Exception):
    def __init__(self, type_: str, message: str) -> None:
        super().__init__(message)
        self.type = type_


class _Root:
    def repository(self, info: Any, owner: str, name: str, followRenames: bool = True) -> dict[str, Any] | None:  # noqa: N803
        api: GitHubAPI = info.context["api"]
        repo = api.repo
        if f"{owner}/{name}".lower() != repo.full_name.lower():
            raise _Typed("NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'.")
        return {
            "nameWithOwner": repo.full_name,
            "discussions": lambda info, **args: _discussions(info, repo, args),
            "issue": lambda info, number: _issue(repo, number),
        }


def _issue(repo: Repo, number: int) -> dict[str, Any]:
    try:
        return issues.issue_node(repo, number, _connection)
    except issues.NotFound as exc:
        raise _Typed("NOT_FOUND", str(exc)) from None


def _discussions(info: Any, repo: Repo, args: dict[str, Any]) -> dict[str, Any]:
    permissions = info.context["api"].tokens.get(info.context["token"]) or {}
    if "discussions" not in permissions:
        raise _Typed("FORBIDDEN", "Resource not accessible by personal access token")
    order = args.get("orderBy") or {"field": "UPDATED_AT", "direction": "DESC"}
    key = "updatedAt" if order["field"] == "UPDATED_AT" else "createdAt"
    items = sorted(repo.discussions.values(), key=lambda d: (d[key], d["number"]), reverse=order["direction"] == "DESC")
    if args.get("answered") is not None:
        items = [d for d in items if (d["answer"] is not None) == args["answered"]]
    descending = order["direction"] == "DESC"
    return _connection("discussions", [(d[key], d["number"], _node(d)) for d in items], args, descending)


def _node(raw: dict[str, Any]) -> dict[str, Any]:
    comments = raw["comments"]
    return {
        **raw,
        "isAnswered": raw["answer"] is not None,
        "bodyText": raw["body"],
        "comments": lambda info, **args: _connection(
            "comments", [(c["createdAt"], i, {**c, "bodyText": c["body"]}) for i, c in enumerate(comments)], args
        ),
    }


def _connection(
    name: str, items: list[tuple[Any, Any, dict[str, Any]]], args: dict[str, Any], descending: bool = False
) -> dict[str, Any]:
    """A page of a connection as GitHub pages: `first` (or `last`) 1..100, after an opaque cursor."""
    first, last = args.get("first"), args.get("last")
    if first is None and last is None:
        raise _Typed(
            "MISSING_PAGINATION_BOUNDARIES",
            f"You must provide a `first` or `last` value to properly paginate the `{name}` connection.",
        )
    size = first if first is not None else last
    if size < 0 or size > MAX_NODES:
        raise _Typed(
            "EXCESSIVE_PAGINATION",
            f"Requesting {size} records on the `{name}` connection exceeds the `first` limit of 100 records.",
        )
    start = _after(items, args["after"], descending) if args.get("after") else 0
    page = items[start : start + size] if first is not None else items[max(len(items) - size, 0) :]
    end = start + len(page)
    return {
        "totalCount": len(items),
        "nodes": [n for _, _, n in page],
        "edges": [{"cursor": _cursor(k, t), "node": n} for k, t, n in page],
        "pageInfo": {
            "startCursor": _cursor(*page[0][:2]) if page else None,
            "endCursor": _cursor(*page[-1][:2]) if page else None,
            "hasNextPage": end < len(items),
            "hasPreviousPage": start > 0,
        },
    }


def _cursor(key: Any, tie: Any) -> str:
    """Opaque, like GitHub's (`Y3Vyc29yOnYyOp...`): the sort key of the last node, so a page boundary holds when
    earlier nodes move."""
    return base64.b64encode(b"cursor:v2:" + json.dumps([key, tie]).encode()).decode()


def _after(items: list[tuple[Any, Any, dict[str, Any]]], cursor: str, descending: bool) -> int:
    """Where the page after a cursor starts: after every node sorted before its key (so a node that has moved
    since does not shift the page)."""
    try:
        key, tie = json.loads(base64.b64decode(cursor)[len(b"cursor:v2:") :])
    except ValueError:
        raise _Typed("INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor.") from None
    for i, (k, t, _) in enumerate(items):
        if ((k, t) < (key, tie)) if descending else ((k, t) > (key, tie)):
            return i
    return len(items)


def add_discussion(
    repo: Repo,
    title: str,
    body: str,
    *,
    category: str = "Q&A",
    author: str = "erin",
    answer: tuple[str, str] | None = None,
    replies: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    """A discussion (answer and replies as (author, body)) as GitHub's GraphQL Discussion holds it."""
    with repo.lock:
        repo.has_discussions = True
        number = 5_000 + len(repo.discussions) + 1
        stamp = repo.tick()
        discussion: dict[str, Any] = {
            "id": f"D_{number}",
            "number": number,
            "title": title,
            "body": body,
            "createdAt": stamp,
            "updatedAt": stamp,
            "url": repo.html(f"/discussions/{number}"),
            "locked": False,
            "author": _user(author),
            "answerChosenAt": None,
            "category": {
                "id": f"DIC_{category}",
                "name": category,
                "emoji": ":pray:",
                "isAnswerable": category == "Q&A",
                "description": None,
                "createdAt": "2026-01-01T00:00:00Z",
                "updatedAt": "2026-01-01T00:00:00Z",
            },
            "answer": None,
            "comments": [],
        }
        repo.discussions[number] = discussion
        for who, text in replies:
            reply(repo, number, text, author=who)
        if answer:
            reply(repo, number, answer[1], author=answer[0], accept=True)
        return discussion


def reply(repo: Repo, number: int, body: str, *, author: str = "frank", accept: bool = False) -> dict[str, Any]:
    """A reply to a discussion (accepted as its answer with `accept`); the discussion's `updatedAt` moves."""
    with repo.lock:
        discussion = repo.discussions[number]
        stamp = repo.tick()
        comment = {
            "id": f"DC_{number}_{len(discussion['comments'])}",
            "body": body,
            "createdAt": stamp,
            "updatedAt": stamp,
            "isAnswer": accept,
            "author": _user(author),
            "url": repo.html(f"/discussions/{number}#discussioncomment-{len(discussion['comments'])}"),
        }
        discussion["comments"].append(comment)
        if accept:
            discussion.update(answer=comment, answerChosenAt=stamp)
        discussion["updatedAt"] = stamp
        return comment


def _user(login: str) -> dict[str, Any]:
    return {"login": login, "url": f"https://github.com/{login}"}
