"""Read tools over the docs: search_docs (ranked sections) and get_doc_section (one section's text).

A doc_id is only ever looked up in the set of loaded pages; user text never becomes a path.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from atlas import tokens
from tools.context import ToolContext
from tools.docs_pages import Page, Section, Subsection, plain_heading
from tools.errors import ToolError
from tools.results import cut

SECTION_TOKENS = 420  # about 1,500 characters of English prose
MAX_QUERY_CHARS = 500


class SearchDocsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="Words to look for: a config key, an ORB-xxxx code, a command, a topic.")
    k: Annotated[int, Field(ge=1, le=10, description="How many sections to return (1-10); 5 is usually enough.")]


class GetDocSectionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc_id: str = Field(description="A doc id exactly as search_docs printed it, e.g. 'retries-and-backoff'.")
    heading: str | None = Field(description="A section heading as printed by search_docs; null for the page intro and its list of sections.")


def search_docs(args: SearchDocsArgs, ctx: ToolContext) -> str | ToolError:
    """Search the project documentation (how-to guides, configuration keys and defaults, ORB-xxxx error codes, CLI commands, deployment). Returns the best-matching sections: doc_id, heading and a one-line snippet. Use it first for any "how do I / what does X mean / what is the default" question. Not for bug reports or what users experienced: use search_issues."""
    query = args.query.strip()
    if not query:
        return ToolError("query is empty.", "Send the words to look for, e.g. 'ORB-1202' or 'lease_seconds default'.")
    hits = ctx.corpus.docs.search(query[:MAX_QUERY_CHARS], args.k)
    if not hits:
        return f'No doc sections match "{query}". Try other words (a config key, an ORB code, a command name).'
    lines = [f'Doc sections for "{query}" (best first; open one with get_doc_section):']
    for hit in hits:
        where = f"{hit.doc_id} § {hit.heading}" if hit.heading else f"{hit.doc_id} (intro)"
        lines.append(f"- {where} [{hit.title}]: {hit.snippet}")
    return "\n".join(lines)


def get_doc_section(args: GetDocSectionArgs, ctx: ToolContext) -> str | ToolError:
    """Read one section of a doc page by doc_id and heading (a long section is cut with a note that says how to read on), or with heading null the page intro and its list of sections. Use it after search_docs to read the details of a hit, or when the user names a page and section. Not for searching: use search_docs."""
    pages = ctx.corpus.docs.pages
    page = pages.get(_doc_key(args.doc_id))
    if page is None:
        return _unknown_doc(args.doc_id, list(pages))
    if args.heading is None or plain_heading(args.heading) in ("", plain_heading(page.title)):
        return _intro(page, ctx)
    wanted = plain_heading(args.heading)
    for section in page.sections:
        if plain_heading(section.heading) == wanted:
            return _render(page, section.heading, section.text, section.subsections, ctx)
        for sub in section.subsections:
            if plain_heading(f"{section.heading} / {sub.heading}") == wanted:
                return _render(page, f"{section.heading} / {sub.heading}", sub.text, (), ctx)
    return _unknown_heading(page, args.heading, wanted)


def _doc_key(doc_id: str) -> str:
    key = doc_id.strip().lower()
    return key[:-3] if key.endswith(".md") else key


def _unknown_doc(doc_id: str, ids: list[str]) -> ToolError:
    key = _doc_key(doc_id)
    containing = [i for i in ids if key and (i.startswith(key) or key in i)]
    close = containing[:1] or difflib.get_close_matches(key, ids, n=1, cutoff=0.4)
    shown = doc_id if len(doc_id) <= 60 else doc_id[:57] + "..."
    if close:
        return ToolError(f"Unknown doc_id '{shown}'.", f"The closest id is '{close[0]}'. Call search_docs to find pages.")
    return ToolError(f"Unknown doc_id '{shown}'.", f"Doc ids are: {', '.join(ids)}. Call search_docs to find pages.")


def _unknown_heading(page: Page, heading: str, wanted: str) -> ToolError:
    shown = heading if len(heading) <= 60 else heading[:57] + "..."
    real = "; ".join(f"'{h}'" for h in page.headings())
    for section in page.sections:
        for sub in section.subsections:
            if plain_heading(sub.heading) == wanted:
                return ToolError(
                    f"No section '{shown}' in {page.doc_id}; '{sub.heading}' is a subsection of '{section.heading}'.",
                    f"Call again with heading '{section.heading}' or '{section.heading} / {sub.heading}'. Sections: {real}.",
                )
    return ToolError(f"No section '{shown}' in {page.doc_id}.", f"The real headings are: {real}. Call again with one of them, or heading null for the intro.")


def _intro(page: Page, ctx: ToolContext) -> str:
    listing = "\n".join(_heading_line(s) for s in page.sections)
    head = f"[{page.doc_id}] {page.title}" + (f" (applies to {page.applies_to})" if page.applies_to else "")
    budget = max(100, SECTION_TOKENS - tokens.count(listing))
    return f"{head}\n{_cut(page.intro, budget, (), ctx)}\n\nSections:\n{listing}"


def _heading_line(section: Section) -> str:
    subs = ", ".join(s.heading for s in section.subsections)
    return f"- {section.heading}" + (f" (subsections: {subs})" if subs else "")


def _render(page: Page, heading: str, text: str, subsections: tuple[Subsection, ...], ctx: ToolContext) -> str:
    head = f"[{page.doc_id} § {heading}] {page.title}" + (f" (applies to {page.applies_to})" if page.applies_to else "")
    parent = heading.split(" / ")[0]
    later = [(text.find(f"### {s.heading}"), f"'{parent} / {s.heading}'") for s in subsections]
    return f"{head}\n{_cut(text, SECTION_TOKENS, later, ctx)}"


def _cut(text: str, limit: int, subsections: Sequence[tuple[int, str]], ctx: ToolContext) -> str:
    """At most `limit` tokens (`results.cut`: the whole text is stashed for read_more), an open code
    block closed, and the subsections that start after the cut named as another way to read on."""
    shown = cut(text, limit, ctx.stash, "section truncated")
    if shown == text:
        return text
    body, note = shown.rsplit("\n", 1)
    if body.count("```") % 2:
        body += "\n```"
    rest = [name for start, name in subsections if start >= len(body)]
    more = f" Subsections after the cut: {', '.join(rest)}." if rest else ""
    return f"{body}\n{note}{more}"
