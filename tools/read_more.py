"""read_more: page through a long tool result that the run stashed instead of showing in full."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tools.context import ToolContext
from tools.errors import ToolError


class ReadMoreArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: str = Field(description="The ref printed with the cut result, e.g. 'r3'.")
    offset: Annotated[int, Field(ge=0, description="Where to continue, in tokens, as printed with the cut result (next_offset).")]


def read_more(args: ReadMoreArgs, ctx: ToolContext) -> str | ToolError:
    """Continue reading a long tool result that was cut short: pass the ref and offset printed with it. Use it only when the part already shown does not answer the question. Not for new searches: call the original tool with a narrower query instead."""
    if ctx.stash is None:
        return ToolError("No stashed results are available in this conversation.", "Re-run the original tool with a narrower query instead.")
    page = ctx.stash.page(args.ref.strip(), args.offset)
    if page is None:
        shown = args.ref if len(args.ref) <= 40 else args.ref[:37] + "..."
        return ToolError(f"The ref '{shown}' is unknown or expired (or the offset is past its end).", "Re-run the original tool call to get a fresh result and ref.")
    if page.next_offset is None:
        return f"{page.text}\n[end of {args.ref}]"
    return f"{page.text}\n[more: read_more ref='{args.ref}' offset={page.next_offset}]"
