"""Slack's markup for text that is not Atlas's own: mrkdwn's control characters escaped, pings defused, dates."""

from __future__ import annotations

import re
import time

from atlas.text import clip
from bot import disguised_links

FALLBACK_TEXT_CHARS = 300  # the `text` Slack shows in notifications

_PING = re.compile(r"<(?=[@#!])|(?<![\w.])@(?=(?:channel|here|everyone)\b)", re.IGNORECASE)


def defuse(text: str) -> str:
    """Model or untrusted text as Slack shows it: `<@U…>`, `<#C…>`, `<!subteam^…>`, `<!channel>`, `@here` and the
    like shown as text, never as a ping (answers quote untrusted issue text); a link whose label names another
    address shows its real host (bot/disguised_links.py)."""
    text = disguised_links.markdown_links(disguised_links.slack_links(text))
    return _PING.sub(lambda m: m.group(0)[0] + "\u200b" + m.group(0)[1:], text)


def escape(text: str) -> str:
    """Slack's three control characters in mrkdwn text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link(url: str | None, label: str) -> str:
    """`<url|label>` with the label escaped, or the escaped label alone without a URL."""
    return f"<{url}|{escape(label)}>" if url else escape(label)


def fallback(text: str) -> str:
    """A message's notification text: one line, clipped."""
    return clip(" ".join(text.split()), FALLBACK_TEXT_CHARS)


def slack_date(at: float) -> str:
    """A Slack date token: shown in the reader's time zone, with a UTC fallback."""
    shown = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))
    return f"<!date^{int(at)}^{{date_short_pretty}} at {{time}}|{shown}>"
