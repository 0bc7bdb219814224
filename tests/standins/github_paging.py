"""GitHub's `Link` pagination as the stand-in serves it: numbered pages, or opaque page tokens (next only)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from tests.standins.github_api import Call, GitHubAPI


class BadPage(Exception):
    """A `page` the stand-in never put in a Link header (with `opaque_pages`)."""


def page_of(
    items: list[Any], call: Call, per_page: int, base: str, api: GitHubAPI | None = None
) -> tuple[list[Any], dict[str, str]]:
    """One page and its `Link` header (next, last) like GitHub's; with `api.opaque_pages`, next only, by token."""
    asked = max(int(call.query.get("page", "1")), 1)
    opaque = api is not None and api.opaque_pages
    if opaque and asked != 1 and asked not in api.page_tokens:  # type: ignore[union-attr]
        raise BadPage(asked)
    page = api.page_tokens[asked] if opaque and asked != 1 else asked  # type: ignore[union-attr]
    last = max((len(items) + per_page - 1) // per_page, 1)
    chunk = items[(page - 1) * per_page : page * per_page]
    links = []
    for rel, number in (("next", page + 1), ("last", last)):
        if rel == "next" and page >= last:
            continue
        if opaque:
            if rel == "last":
                continue
            token = 7_000 + len(api.page_tokens) * 13  # type: ignore[union-attr]
            api.page_tokens[token] = number  # type: ignore[union-attr]
            number = token
        query = urlencode({**call.query, "page": number})
        links.append(f'<{(api.link_base if api else None) or base}{call.path}?{query}>; rel="{rel}"')
    return chunk, ({"Link": ", ".join(links)} if links else {})
