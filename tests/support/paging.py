"""Reading a cut result to its end the way a model does: follow each note's read_more call."""

from __future__ import annotations

import json
import re

from tools import ToolContext, ToolOutput, dispatch, v2_registry

NOTE = re.compile(
    r"\n\[(?P<label>[^\]]*?): (?P<more>[\d,]+) more tokens; use "
    r'read_more\(ref="(?P<ref>r[0-9a-f]+)", offset=(?P<offset>\d+)\)\]'
)
"""A cut's or a page's note, as `tools.results.read_on` writes it."""


def read(ctx: ToolContext, ref: str, offset: int) -> ToolOutput:
    return dispatch(v2_registry(), "read_more", json.dumps({"ref": ref, "offset": offset}), ctx)


def page_through(ctx: ToolContext, ref: str, offset: int, total: int) -> list[str]:
    """Follow each page's note to the end; each page's text (without its note) in order.

    Fails when a page is an error, a note names another ref, an offset does not move forward,
    or the paging does not end within `total` + 2 pages (a last page repeated forever).
    """
    pages: list[str] = []
    for _ in range(total + 2):
        out = read(ctx, ref, offset)
        assert out.ok, out.text
        if out.text.endswith(f"\n[end of {ref}]"):
            return [*pages, out.text.removesuffix(f"\n[end of {ref}]")]
        notes = list(NOTE.finditer(out.text))
        note = notes[-1] if notes else None
        assert note and note.end() == len(out.text), out.text[-200:]
        assert note["ref"] == ref and note["label"] == "more", out.text[-200:]
        assert int(note["offset"]) > offset, "the next offset must move forward"
        pages.append(out.text[: note.start()])
        offset = int(note["offset"])
    raise AssertionError(f"paging {ref} never ended")


def read_all(ctx: ToolContext, shown_with_note: str) -> str:
    """The whole text behind a cut: the part shown before the note, then every page after it."""
    notes = list(NOTE.finditer(shown_with_note))
    assert notes, shown_with_note[-200:]
    note = notes[-1]
    shown = shown_with_note[: note.start()]
    return shown + "".join(page_through(ctx, note["ref"], int(note["offset"]), int(note["more"].replace(",", "")) + 1))
