"""read_more: page through a long tool result that the run stashed instead of showing in full."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from tools.context import ToolContext
from tools.errors import ToolError
from tools.results import read_on


class ReadMoreArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: str = Field(description="The ref printed with the cut result, e.g. 'r3'.")
    offset: Annotated[int, Field(ge=0, description="Where to continue, in tokens, as printed with the cut result.")]


def read_more(args: ReadMoreArgs, ctx: ToolContext) -> str | ToolError:
    """Continue reading a long tool result that was cut short: pass the ref and offset printed with it. Use it only when
    the part already shown does not answer the question. Not for new searches: call the original tool with a narrower
    query instead."""
    if ctx.stash is None:
        return ToolError(
            "No stashed results are available in this conversation.",
            "Re-run the original tool with a narrower query instead.",
        )
    ref = args.ref.strip()
    page = ctx.stash.page(ref, args.offset)
    if page is None:
        shown = ref if len(ref) <= 40 else ref[:37] + "..."
        return ToolError(
            f"The ref '{shown}' is unknown or expired (or the offset is past its end).",
            "Re-run the original tool call to get a fresh result and ref.",
        )
    if page.next_offset is None:
        return f"{page.text}\n[end of {ref}]"
    return f"{page.text}\n{read_on(ref, page.next_offset, page.total_tokens - page.next_offset, label='more')}"
