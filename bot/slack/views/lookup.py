"""A slash-command lookup's reply on Slack (workers/messages/lookup.py): the found text under its title with a share
button, the usage text after what was wrong, or the short failure note. Text and blocks, ready to send."""

from __future__ import annotations

import re
from typing import Any, assert_never

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.slack import wording
from bot.slack.views.answer import source_link
from bot.slack.views.markup import escape
from workers.messages import wording as said
from workers.messages.answer import sources_of
from workers.messages.lookup import Found, Help, LookupFailed, LookupReply

SHARE_ACTION = "atlas_share"
SECTION_CHARS = SectionBlock.text_max_length  # 3,000
MAX_SECTIONS = 12  # a lookup's text is short; this bounds a pathological one well under 50 blocks
FALLBACK_CHARS = 300
_ISSUE_REF = re.compile(r"(?<![&\w])#(\d{1,9})\b")


def lookup_message(reply: LookupReply) -> dict[str, Any]:
    """The reply as `text` (what notifications show) and `blocks`, serialised through slack_sdk, which raises if a
    block breaks one of Slack's limits."""
    match reply:
        case Found():
            return {"text": _fallback(reply), "blocks": [block.to_dict() for block in found_blocks(reply)]}
        case Help(command=command):
            return {"text": wording.USAGE.format(cmd=command), "blocks": [usage_block(reply).to_dict()]}
        case LookupFailed():
            return {"text": wording.LOOKUP_FAILED}
        case _:
            assert_never(reply)


def found_blocks(found: Found) -> list[Block]:
    """Title, the tool's text (issue numbers linked), then a share button or who shared it."""
    result, base = found.result, found.issues_base_url
    lookup = result.lookup
    title = said.LOOKUP_TITLE[lookup.kind].format(arg=escape(lookup.arg))
    if lookup.kind == "issue" and result.ok and base:
        (source,) = sources_of(["#" + lookup.arg], docs_base_url=None, issues_base_url=base)
        title = f"{title} ({source_link(source)})"
    if lookup.state:
        title += f" ({lookup.state})"
    body = escape(result.said)
    if base:
        body = _ISSUE_REF.sub(
            lambda m: source_link(*sources_of(["#" + m.group(1)], docs_base_url=None, issues_base_url=base)), body
        )
    blocks: list[Block] = [SectionBlock(text=MarkdownTextObject(text=f"*{title}*"))]
    for chunk in chunks(body, SECTION_CHARS)[:MAX_SECTIONS]:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=chunk)))
    if found.shareable and result.ok:
        button = ButtonElement(text=wording.SHARE_BUTTON, action_id=SHARE_ACTION, value=lookup.text)
        blocks.append(ActionsBlock(elements=[button]))
    if found.shared_by is not None:
        shared_by = wording.SHARED_BY.format(user=escape(found.shared_by), cmd=found.command, text=escape(lookup.text))
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=shared_by)]))
    return blocks


def usage_block(help_: Help) -> SectionBlock:
    """The usage text, after what was wrong with the input when something was."""
    text = wording.USAGE.format(cmd=help_.command)
    usage = help_.usage
    if usage is not None and usage.problem:
        problem = said.LOOKUP_PROBLEM[usage.problem].format(cmd=help_.command, word=escape(usage.word))
        text = f"{problem}\n\n{text}"
    return SectionBlock(text=MarkdownTextObject(text=text))


def _fallback(found: Found) -> str:
    lookup = found.result.lookup
    return said.LOOKUP_TITLE[lookup.kind].format(arg=lookup.arg)[:FALLBACK_CHARS]


def chunks(text: str, limit: int) -> list[str]:
    """Whole lines per chunk where possible; a single overlong line is cut."""
    found: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                found.append(current)
                current = ""
            found.append(line[:limit])
            line = line[limit:]
        joined = f"{current}\n{line}" if current else line
        if len(joined) > limit:
            found.append(current)
            current = line
        else:
            current = joined
    if current.strip():
        found.append(current)
    return found or [" "]
