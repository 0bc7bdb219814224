"""Read tools over the synced source tree: search_code (words or a symbol) and read_file (numbered lines).

A path is matched against the index's rows only (tools/knowledge_store.py), never opened, so no
argument can reach outside the synced tree. File text is data: it is shown, never followed.
"""

from __future__ import annotations

import difflib
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tools import merged_hits
from tools.context import ToolContext
from tools.docsearch.terms import tokens as stems
from tools.errors import ToolError
from tools.fts_query import searchable, terms
from tools.knowledge_store import CodeHit, KnowledgeStore
from tools.merged_hits import Hit, Ranked
from tools.results import cut

MAX_QUERY_CHARS = 300
LINES_PER_HIT = 3
LINE_CHARS = 160
MAX_READ_LINES = 200
READ_TOKENS = 900
NO_CODE = ToolError(
    "No source code is synced for this project.", "Answer from search_docs, search_issues or search_history instead."
)


class SearchCodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(
        description="Words or a name from the code: 'lease renewed', 'compute_delay', 'Heartbeat.renew_leases'."
    )
    path_prefix: str | None = Field(
        description="Only files under this path, e.g. 'orbit/' or 'src/broker'; null for the whole tree."
    )
    limit: Annotated[int, Field(ge=1, le=10, description="How many places to list (1-10); 5 is a good default.")]


class ReadFileArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="A file path exactly as search_code printed it, e.g. 'orbit/lease.py'.")
    start: Annotated[int, Field(ge=1, description="First line to show (1-based).")]
    end: Annotated[int, Field(ge=1, description=f"Last line to show; at most {MAX_READ_LINES} lines per call.")]


def search_code(args: SearchCodeArgs, ctx: ToolContext) -> str | ToolError:
    """Search the project's source code (the default branch at the synced commit) by words or by a symbol it defines
    (function, class, method, constant). Lists file paths with line ranges, the names defined there, the matching lines
    and a permalink. Use it for "where is X computed / defined / handled", or when the user names a function or class.
    Then read_file for more lines. Not for how to configure or use the project: use search_docs."""
    found = ranked_code(args, ctx)
    return found if isinstance(found, ToolError) else merged_hits.text(found)


def ranked_code(args: SearchCodeArgs, ctx: ToolContext) -> Ranked | ToolError:
    """`search_code`'s result as hits a search over several repositories merges (tools/merged_hits.py): graded by how
    the place matched (a definition of a name asked, every word, some), scored by its bm25 in its own repository."""
    store = ctx.corpus.knowledge
    if store is None or store.file_count() == 0:
        return NO_CODE
    query = searchable(
        args.query, MAX_QUERY_CHARS, "words or a name from the code, e.g. 'retry delay' or 'compute_delay'"
    )
    if isinstance(query, ToolError):
        return query
    prefix = _clean_prefix(args.path_prefix)
    hits = store.symbol_hits(query, prefix, args.limit)
    for hit in store.chunk_hits(query, prefix, args.limit):
        if len(hits) < args.limit and not any(
            h.path == hit.path and h.start <= hit.end and hit.start <= h.end for h in hits
        ):
            hits.append(hit)
    where = f" under {prefix}" if prefix else ""
    empty = f'No code{where} matches "{query}". Try other words or a function name' + (
        ", or path_prefix null." if prefix else "."
    )
    shown = tuple(Hit(tuple(_hit(store, hit, query)), hit.relevance, hit.grade) for hit in hits)
    return Ranked(
        f'Code{where} matching "{query}"',
        ", best first (definitions first; open one with read_file):",
        (),
        shown,
        empty,
    )


def read_file(args: ReadFileArgs, ctx: ToolContext) -> str | ToolError:
    """Read lines start..end of one file of the project's source code, with line numbers and a permalink to exactly
    those lines. Use it after search_code to see a definition or its surroundings. Not for searching: use
    search_code."""
    store = ctx.corpus.knowledge
    if store is None or store.file_count() == 0:
        return NO_CODE
    path = args.path.strip().lstrip("/")
    found = store.file(path)
    if found is None:
        return _unknown_path(args.path, store.paths())
    _, text = found
    lines = text.splitlines()
    if args.start > len(lines):
        return ToolError(
            f"{path} has {len(lines)} lines; start {args.start} is past its end.",
            f"Call again with start between 1 and {len(lines)}.",
        )
    if args.end < args.start:
        return ToolError(f"end ({args.end}) is before start ({args.start}).", "Call again with end >= start.")
    end = min(args.end, len(lines), args.start + MAX_READ_LINES - 1)
    shown = "\n".join(f"{n}: {lines[n - 1]}" for n in range(args.start, end + 1))
    more = f" (of {len(lines)}; the rest with another read_file)" if end < len(lines) else f" (of {len(lines)})"
    head = f"{path} lines {args.start}-{end}{more} {permalink(store, path, args.start, end)}"
    return f"{head}\n{cut(shown, READ_TOKENS, ctx.stash, 'lines truncated')}"


def permalink(store: KnowledgeStore, path: str, start: int, end: int) -> str:
    """`<repo>/blob/<synced commit>/<path>#L<start>-L<end>`, or the bare path when the repository URL is unknown."""
    url, commit = store.meta("url").rstrip("/"), store.meta("commit")
    anchor = f"#L{start}" + (f"-L{end}" if end != start else "")
    return f"{url}/blob/{commit}/{path}{anchor}" if url and commit else f"{path}{anchor}"


def _hit(store: KnowledgeStore, hit: CodeHit, query: str) -> list[str]:
    found = store.file(hit.path)
    lines = found[1].splitlines() if found else []
    wanted = set(stems(query)) | {t.lower() for t in terms(query)}
    numbers = range(hit.start, min(hit.end, len(lines)) + 1)
    chosen = [n for n in numbers if wanted & (set(stems(lines[n - 1])) | {w.lower() for w in terms(lines[n - 1])})]
    if hit.symbol:
        chosen = [hit.start] + [n for n in chosen if n != hit.start]
    chosen = sorted(chosen[:LINES_PER_HIT]) or list(numbers)[:LINES_PER_HIT]
    start, end = hit.start, min(hit.end, max(len(lines), 1))
    defines = f" defines {', '.join(hit.defines[:4])}" if hit.defines else ""
    out = [f"- {hit.path} L{start}-L{end}{defines} {permalink(store, hit.path, start, end)}"]
    out += [f"  {n}: {_short(lines[n - 1].strip())}" for n in chosen]
    return out


def _short(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 3] + "..."


def _clean_prefix(prefix: str | None) -> str:
    cleaned = (prefix or "").strip()
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    return cleaned.lstrip("/")


def _unknown_path(path: str, paths: list[str]) -> ToolError:
    shown = path if len(path) <= 80 else path[:77] + "..."
    tail = path.strip().rsplit("/", 1)[-1]
    close = [p for p in paths if p.endswith("/" + tail) or p == tail][:3] or difflib.get_close_matches(
        path.strip(), paths, n=3, cutoff=0.5
    )
    if close:
        return ToolError(
            f"No file '{shown}' in the synced tree.",
            f"Did you mean {', '.join(repr(c) for c in close)}? Paths are as search_code prints them.",
        )
    return ToolError(f"No file '{shown}' in the synced tree.", "Call search_code to find the file and its exact path.")
