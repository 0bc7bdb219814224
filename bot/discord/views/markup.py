"""Discord Markdown for text Atlas did not write: shown as itself, in a code block nothing can close, and the
model's own Markdown with its mentions and disguised links defused.

Text that comes from outside (issue titles, labels, tool output, names) is escaped; the answer itself is the
model's Markdown, sent with its mentions shown as text (they never ping either: the REST client sets
`allowed_mentions` to none on every message) and its masked links' real hosts.
"""

from __future__ import annotations

import re
from typing import Any

from bot import disguised_links

_MARKDOWN = re.compile(r"([\\*_~`|>#\-\[\]()<:])")
_PING = re.compile(r"<(?=@[!&]?\d)|(?<![\w.])@(?=(?:everyone|here)\b)", re.IGNORECASE)
FENCE_OPEN, FENCE_CLOSE = "```\n", "\n```"


def defuse(text: str) -> str:
    """The model's Markdown as Discord shows it: `<@id>`, `<@&role>`, `@everyone` and `@here` shown as text (the REST
    client's `allowed_mentions` already keeps them from pinging); a masked link whose label names another address
    shows its real host (bot/disguised_links.py)."""
    return _PING.sub(lambda m: m.group(0) + "\u200b", disguised_links.markdown_links(text))


def escape(text: str) -> str:
    """Discord Markdown's control characters shown as themselves (also defuses `<@id>` and `:emoji:`)."""
    return _MARKDOWN.sub(r"\\\1", text)


def issue_link(issue: Any) -> str:
    """`#12 title` (escaped), a link to the issue where it has a URL."""
    text = escape(f"#{issue.number} {issue.title}")
    return f"[{text}](<{issue.url}>)" if getattr(issue, "url", None) else text


def code(text: str) -> str:
    """Inline code that the text cannot end early."""
    return "`" + text.replace("`", "'") + "`"


def fenced(text: str) -> str:
    """A code block nothing inside can close: its own fences are broken with a zero-width space."""
    return FENCE_OPEN + text.replace("```", "`\u200b``") + FENCE_CLOSE
