"""Read tools over the docs: search_docs (ranked sections) and get_doc_section (one section's text).

A doc_id is only ever looked up in the set of loaded pages; user text never becomes a path.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from atlas import tokens
from tools import merged_hits
from tools.context import ToolContext
from tools.docsearch.confidence import uncovered
from tools.docsearch.index import DocHit
from tools.docsearch.pages import SEP, Page, Section, plain_heading
from tools.errors import ToolError
from tools.merged_hits import Hit, Ranked
from tools.results import cut

SECTION_TOKENS = 420  # about 1,500 characters of English prose
MAX_QUERY_CHARS = 500
MAX_LISTED = 40
MAX_UNKNOWN = 8
# Said when most of the question's words are in no doc and no section is close in meaning
# (tools/docsearch/confidence.py).
UNCOVERED = (
    "(Weak match: no doc has the words {words}, and no section is close to "
    "the question; the docs likely do not cover it.)"
)


class SearchDocsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="Words to look for: a config key, an ORB-xxxx code, a command, a topic.")
    k: Annotated[int, Field(ge=1, le=10, description="How many sections to return (1-10); 5 is usually enough.")]


class GetDocSectionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc_id: str = Field(description="A doc id exactly as search_docs printed it, e.g. 'retries-and-backoff'.")
    heading: str | None = Field(
        description="A section heading as printed by search_docs; null for the page intro and its list of sections."
    )


def search_docs(args: SearchDocsArgs, ctx: ToolContext) -> str | ToolError:
    """Search the project documentation (how-to guides, configuration keys and defaults, ORB-xxxx error codes, CLI
    commands, deployment). Returns the best-matching sections: doc_id, heading and a one-line snippet. Use it first for
    any "how do I / what does X mean / what is the default" question. Not for bug reports or what users experienced: use
    search_issues."""
    found = ranked_docs(args, ctx)
    return found if isinstance(found, ToolError) else merged_hits.text(found)


def ranked_docs(args: SearchDocsArgs, ctx: ToolContext) -> Ranked | ToolError:
    """`search_docs`'s result as hits a search over several repositories merges (tools/merged_hits.py): graded by
    whether the section holds every word of the query, scored by its cosine similarity to the question when the docs
    are searched by meaning (one model: comparable across repositories), else by its BM25 in its own repository."""
    query = args.query.strip()
    if not query:
        return ToolError("query is empty.", "Send the words to look for, e.g. 'ORB-1202' or 'lease_seconds default'.")
    hits = ctx.corpus.docs.search(query[:MAX_QUERY_CHARS], args.k)
    head = f'Doc sections for "{query}"', " (best first; open one with get_doc_section):"
    empty = f'No doc sections match "{query}". Try other words (a config key, an ORB code, a command name).'
    if not hits:
        return Ranked(*head, (), (), empty)
    notes: list[str] = []
    unknown = ctx.corpus.docs.unknown_words(query[:MAX_QUERY_CHARS])[:MAX_UNKNOWN]
    if unknown:
        notes.append(
            f"(No doc mentions: {', '.join(unknown)}. If those words are the "
            "point of the question, the docs may not cover it.)"
        )
    elif absent := uncovered(ctx.corpus.docs, query[:MAX_QUERY_CHARS], hits)[:MAX_UNKNOWN]:
        notes.append(UNCOVERED.format(words=", ".join(absent)))
    return Ranked(*head, tuple(notes), tuple(map(_hit, hits)), empty)


def _hit(hit: DocHit) -> Hit:
    where = f"{hit.doc_id} § {hit.heading}" if hit.heading else f"{hit.doc_id} (intro)"
    line, every_word = (f"- {where} [{hit.title}]: {hit.snippet}",), int(hit.coverage >= 1.0)
    if hit.similarity is not None:
        return Hit(line, hit.similarity, every_word, comparable=True)
    return Hit(line, hit.score, every_word)


def get_doc_section(args: GetDocSectionArgs, ctx: ToolContext) -> str | ToolError:
    """Read one section of a doc page by doc_id and heading (a long section is cut with a note that says how to read
    on), or with heading null the page intro and its list of sections. Use it after search_docs to read the details of a
    hit, or when the user names a page and section. Not for searching: use search_docs."""
    pages = ctx.corpus.docs.pages
    page = pages.get(_doc_key(args.doc_id))
    if page is None:
        return _unknown_doc(args.doc_id, list(pages))
    if args.heading is None or not plain_heading(args.heading):
        return _intro(page, ctx)
    found = find_section(page, args.heading)  # before the title: RQ's pages repeat their title as a heading
    if isinstance(found, Section):
        return _render(page, found, ctx)
    if plain_heading(args.heading) == plain_heading(page.title):
        return _intro(page, ctx)
    return _unknown_heading(page, args.heading, found)


def find_section(page: Page, heading: str) -> Section | list[Section]:
    """The section `heading` names by its full path ('A › B', 'A / B'; a prefix such as the page title
    is ignored), else the sections it could mean: nested ones whose own heading it is."""
    wanted = plain_heading(heading)
    keyed = [(plain_heading("/".join(s.path)), s) for s in page.sections]
    exact = [s for key, s in keyed if key == wanted]
    tail = [s for key, s in keyed if wanted.endswith("/" + key)]
    if exact or len(tail) == 1:
        return (exact or tail)[0]
    return [s for key, s in keyed if key.endswith("/" + wanted)]


def _doc_key(doc_id: str) -> str:
    key = doc_id.strip().lower()
    return key.rsplit(".", 1)[0] if key.endswith((".md", ".rst")) else key


def _unknown_doc(doc_id: str, ids: list[str]) -> ToolError:
    key = _doc_key(doc_id)
    containing = [i for i in ids if key and (i.startswith(key) or key in i)]
    close = containing[:1] or difflib.get_close_matches(key, ids, n=1, cutoff=0.4)
    shown = doc_id if len(doc_id) <= 60 else doc_id[:57] + "..."
    if close:
        return ToolError(
            f"Unknown doc_id '{shown}'.", f"The closest id is '{close[0]}'. Call search_docs to find pages."
        )
    return ToolError(f"Unknown doc_id '{shown}'.", f"Doc ids are: {', '.join(ids)}. Call search_docs to find pages.")


def _unknown_heading(page: Page, heading: str, candidates: list[Section]) -> ToolError:
    shown = heading if len(heading) <= 60 else heading[:57] + "..."
    listing = page.headings()
    real = "; ".join(f"'{h}'" for h in listing[:MAX_LISTED]) + ("; ..." if len(listing) > MAX_LISTED else "")
    if not listing:
        return ToolError(f"{page.doc_id} has no sections.", "Call again with heading null to read the whole page.")
    if candidates:
        sub = candidates[0]
        parent = SEP.join(sub.path[:-1])
        return ToolError(
            f"No section '{shown}' in {page.doc_id}; '{sub.path[-1]}' is a subsection of '{parent}'.",
            f"Call again with heading '{parent}' or '{sub.heading}'. Sections: {real}.",
        )
    return ToolError(
        f"No section '{shown}' in {page.doc_id}.",
        f"The real headings are: {real}. Call again with one of them, or heading null for the intro.",
    )


def _intro(page: Page, ctx: ToolContext) -> str:
    listing = "\n".join(f"{'  ' * (len(s.path) - 1)}- {s.path[-1]}" for s in page.sections)
    head = f"[{page.doc_id}] {page.title}" + (f" (applies to {page.applies_to})" if page.applies_to else "")
    if not listing:
        return f"{head}\n{_cut(page.intro, SECTION_TOKENS, (), ctx)}"
    budget = max(100, SECTION_TOKENS - tokens.count(listing))
    intro = f"{_cut(page.intro, budget, (), ctx)}\n\n" if page.intro else ""
    return f"{head}\n{intro}Sections (a nested one by its own heading or as 'Parent › Child'):\n{listing}"


def _render(page: Page, section: Section, ctx: ToolContext) -> str:
    head = f"[{page.doc_id} § {section.heading}] {page.title}" + (
        f" (applies to {page.applies_to})" if page.applies_to else ""
    )
    text = section.text
    starts = [(text.find("# " + child.rsplit(SEP, 1)[-1]), f"'{child}'") for child in section.children]
    return f"{head}\n{_cut(text, SECTION_TOKENS, starts, ctx)}"


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
