"""The slash command (`/orbit` by default) and its "Share in channel" button.

Answered in the ack itself, ephemeral: a lookup is a local tool call taking milliseconds, well
inside Slack's 3 seconds. The share button carries the command text and re-runs the lookup, so
sharing needs no stored state (and works while Redis is down).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    SectionBlock,
)

from bot.lookups import TITLE as LOOKUP_TITLE
from bot.lookups import Lookup, Result, Usage, issues_url, parse
from bot.slack import wording
from bot.slack.deps import Deps
from bot.slack.views.answer import source_link
from bot.slack.views.markup import escape
from workers.messages.answer import sources_of

log = logging.getLogger("atlas.bot.slack.commands")

SHARE_ACTION = "atlas_share"
SECTION_CHARS = SectionBlock.text_max_length  # 3,000
MAX_SECTIONS = 12  # a lookup's text is short; this bounds a pathological one well under 50 blocks
_ISSUE_REF = re.compile(r"(?<![&\w])#(\d{1,9})\b")


def render(result: Result, *, issues_base_url: str | None, docs_base_url: str | None, shareable: bool) -> list[Block]:
    """A lookup's result as blocks: title, the tool's text (issue numbers linked), a share button."""
    lookup = result.lookup
    title = LOOKUP_TITLE[lookup.kind].format(arg=escape(lookup.arg))
    if lookup.kind == "issue" and result.ok and issues_base_url:
        (source,) = sources_of(["#" + lookup.arg], docs_base_url=None, issues_base_url=issues_base_url)
        title = f"{title} ({source_link(source)})"
    if lookup.state:
        title += f" ({lookup.state})"
    body = escape(result.text) if result.ok else escape(result.text.split("\nHint:")[0])
    if issues_base_url:
        body = _ISSUE_REF.sub(
            lambda m: source_link(*sources_of(["#" + m.group(1)], docs_base_url=None, issues_base_url=issues_base_url)),
            body,
        )
    blocks: list[Block] = [SectionBlock(text=MarkdownTextObject(text=f"*{title}*"))]
    for chunk in _chunks(body, SECTION_CHARS)[:MAX_SECTIONS]:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=chunk)))
    if shareable and result.ok:
        blocks.append(
            ActionsBlock(elements=[ButtonElement(text=wording.SHARE_BUTTON, action_id=SHARE_ACTION, value=lookup.text)])
        )
    return blocks


def usage_blocks(usage: Usage | None, command: str) -> list[Block]:
    """The usage text, after what was wrong with the input when something was."""
    text = wording.USAGE.format(cmd=command)
    if usage is not None and usage.problem:
        problem = getattr(wording, usage.problem).format(cmd=command, **dict(usage.values))
        text = f"{escape(problem) if usage.problem == 'UNKNOWN_SUBCOMMAND' else problem}\n\n{text}"
    return [SectionBlock(text=MarkdownTextObject(text=text))]


def on_command(deps: Deps) -> Callable[..., None]:
    """Parse, look up, and answer in the ack (ephemeral)."""
    settings = deps.settings

    def handle_command(ack: Ack, command: dict[str, Any]) -> None:
        name = command.get("command") or settings.slash_command
        parsed = parse(command.get("text") or "")
        try:
            if isinstance(parsed, Usage) or parsed.kind == "help":
                blocks = usage_blocks(parsed if isinstance(parsed, Usage) else None, name)
                ack(response_type="ephemeral", text=wording.USAGE.format(cmd=name), blocks=_dicts(blocks))
                return
            result = deps.lookups.run(parsed, command.get("channel_id"))
            blocks = render(
                result,
                issues_base_url=issues_url(settings, result),
                docs_base_url=settings.docs_base_url,
                shareable=True,
            )
            ack(response_type="ephemeral", text=_fallback(result), blocks=_dicts(blocks))
        except Exception:
            log.exception("slash command %r failed", (command.get("text") or "")[:80])
            ack(response_type="ephemeral", text=wording.LOOKUP_FAILED)

    return handle_command


def on_share(deps: Deps) -> Callable[..., None]:
    """Post the same lookup in the channel for everyone, then remove the ephemeral original: two
    response_url requests, since one that carries `delete_original` may be taken as a pure delete."""
    settings = deps.settings

    def handle_share(ack: Ack, action: dict[str, Any], body: dict[str, Any], respond: Respond) -> None:
        ack()
        parsed = parse(str(action.get("value") or ""))
        user = (body.get("user") or {}).get("id", "")
        if not isinstance(parsed, Lookup) or parsed.kind == "help":
            return
        try:
            result = deps.lookups.run(parsed, (body.get("channel") or {}).get("id"))  # the channel's repository
            blocks = render(
                result,
                issues_base_url=issues_url(settings, result),
                docs_base_url=settings.docs_base_url,
                shareable=False,
            )
            shared_by = wording.SHARED_BY.format(
                user=escape(user), cmd=settings.slash_command, text=escape(parsed.text)
            )
            blocks.append(ContextBlock(elements=[MarkdownTextObject(text=shared_by)]))
            respond(response_type="in_channel", replace_original=False, text=_fallback(result), blocks=_dicts(blocks))
            respond(delete_original=True)
        except Exception:
            log.exception("sharing %r failed", parsed.text)
            respond(response_type="ephemeral", replace_original=False, text=wording.LOOKUP_FAILED)

    return handle_share


def register(app: App, deps: Deps) -> None:
    app.command(deps.settings.slash_command)(on_command(deps))
    app.action(SHARE_ACTION)(on_share(deps))


def _dicts(blocks: list[Block]) -> list[dict[str, Any]]:
    """Serialised through slack_sdk, which raises if a block breaks one of Slack's limits."""
    return [block.to_dict() for block in blocks]


def _fallback(result: Result) -> str:
    title = LOOKUP_TITLE[result.lookup.kind].format(arg=result.lookup.arg)
    return title[:300]


def _chunks(text: str, limit: int) -> list[str]:
    """Whole lines per chunk where possible; a single overlong line is cut."""
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                chunks.append(current)
                current = ""
            chunks.append(line[:limit])
            line = line[limit:]
        joined = f"{current}\n{line}" if current else line
        if len(joined) > limit:
            chunks.append(current)
            current = line
        else:
            current = joined
    if current.strip():
        chunks.append(current)
    return chunks or [" "]
