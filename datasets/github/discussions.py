"""A repository's GitHub Discussions into knowledge/discussions.jsonl, over GraphQL (issue 27).

Discussions have no REST listing: `Repository.discussions` is asked through githubkit's GraphQL client,
newest-updated first (GitHub's default order, asked explicitly), QUERY_PAGE a page along `pageInfo`'s
`endCursor`. Each discussion comes with its title, body, category, whether it is answered, the accepted
answer and its first replies. The walk stops at the first discussion older than the high-water mark (the
newest `updatedAt` of the last complete walk), so a sync with nothing changed costs one request (GraphQL
has no ETags). A reply or a chosen answer moves the discussion's `updatedAt`, so it comes round again.
Discussions are kept in the staging store (a table of their own) and discussions.jsonl is rewritten
from it only when one changed; the mark is committed after the walk, so a killed sync walks again from
the top down to the old mark and misses nothing. A deleted discussion stays until the folder is synced
afresh (GitHub's listing does not say what left it).
"""

from __future__ import annotations

import json
from typing import Any

from atlas.errors import GitHubFailure
from atlas.github_client import READ_DISCUSSIONS
from datasets.github.fetch import Fetcher
from datasets.github.store import Store
from datasets.knowledge_files import DISCUSSIONS, write_jsonl

QUERY_PAGE = 50  # each discussion asks up to REPLIES comments: GitHub's node limit counts first x first
REPLIES = 10
KEPT_REPLIES = 4  # the top replies kept beside the accepted answer
MARK = "watermark.discussions"
TABLE = (
    "CREATE TABLE IF NOT EXISTS discussions(number INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, record TEXT NOT NULL)"
)
# Field names as GitHub's GraphQL reference has them (Repository.discussions, Discussion, DiscussionComment).
QUERY = f"""
query($owner: String!, $name: String!, $cursor: String) {{
  repository(owner: $owner, name: $name) {{
    discussions(first: {QUERY_PAGE}, after: $cursor, orderBy: {{field: UPDATED_AT, direction: DESC}}) {{
      pageInfo {{ hasNextPage endCursor }}
      nodes {{
        number title body url createdAt updatedAt
        author {{ login }}
        category {{ name }}
        answer {{ body createdAt author {{ login }} }}
        comments(first: {REPLIES}) {{ nodes {{ body createdAt isAnswer author {{ login }} }} }}
      }}
    }}
  }}
}}
"""


def sync_discussions(fetch: Fetcher, store: Store, owner: str, name: str) -> int:
    """Bring the discussions updated since the last complete walk; returns how many changed (0: none).

    Raises GitHubFailure as every source does; `permission` when the token or App may not read discussions."""
    store.conn.execute(TABLE)
    mark = store.get(MARK)
    newest, cursor, changed, pages = mark, None, 0, 0
    while True:
        pages += 1
        data = fetch.graphql(
            QUERY,
            {"owner": owner, "name": name, "cursor": cursor},
            doing="list the discussions of",
            needs=READ_DISCUSSIONS,
        )
        listing = ((data or {}).get("repository") or {}).get("discussions")
        if not isinstance(listing, dict):
            raise GitHubFailure("not_found", f"GitHub returned no discussions listing for {fetch.repo}")
        nodes = [n for n in listing.get("nodes") or [] if isinstance(n, dict) and n.get("updatedAt")]
        fresh = [n for n in nodes if not mark or str(n["updatedAt"]) >= mark]  # same second as the mark: asked again
        with store.batch():
            changed += sum(_put(store, node) for node in fresh)
        newest = max([str(n["updatedAt"]) for n in fresh] + ([newest] if newest else []), default=None)
        fetch.progress.page("discussions", len(fresh), pages, None, None)
        page = listing.get("pageInfo") or {}
        if len(fresh) < len(nodes) or not page.get("hasNextPage") or not page.get("endCursor"):
            break
        cursor = page["endCursor"]
    if changed or not (store.folder / DISCUSSIONS).exists():
        write_jsonl(
            store.folder / DISCUSSIONS,
            (json.loads(r) for (r,) in store.conn.execute("SELECT record FROM discussions ORDER BY number")),
        )
    store.put(MARK, newest)
    return changed


def _put(store: Store, node: dict[str, Any]) -> bool:
    """Store one discussion; False when the stored copy is already this one."""
    record = json.dumps(row(node), sort_keys=True)
    stored = store.conn.execute("SELECT record FROM discussions WHERE number = ?", (int(node["number"]),)).fetchone()
    if stored and stored[0] == record:
        return False
    store.conn.execute(
        "INSERT OR REPLACE INTO discussions(number, updated_at, record) VALUES (?, ?, ?)",
        (int(node["number"]), str(node["updatedAt"]), record),
    )
    return True


def row(node: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL Discussion as discussions.jsonl holds it (the Orbit demo's layout)."""
    answer = node.get("answer") if isinstance(node.get("answer"), dict) else None
    comments = [
        c for c in ((node.get("comments") or {}).get("nodes") or []) if isinstance(c, dict) and not c.get("isAnswer")
    ]
    return {
        "number": node["number"],
        "title": node.get("title") or "",
        "body": node.get("body") or "",
        "author": _login(node),
        "category": (node.get("category") or {}).get("name"),
        "url": node.get("url"),
        "created_at": node.get("createdAt"),
        "updated_at": node.get("updatedAt"),
        "answered": answer
        is not None,  # from the answer itself: `isAnswered` is missing on older GitHub Enterprise Servers
        "answer": _comment(answer) if answer else None,
        "replies": [_comment(c) for c in comments[:KEPT_REPLIES]],
    }


def _comment(raw: dict[str, Any]) -> dict[str, Any]:
    return {"author": _login(raw), "body": raw.get("body") or "", "created_at": raw.get("createdAt")}


def _login(raw: dict[str, Any]) -> str | None:
    author = raw.get("author")
    return str(author["login"]) if isinstance(author, dict) and author.get("login") else None  # a deleted user: null
