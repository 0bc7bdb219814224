"""A link whose label looks like another address, shown with the host it really goes to.

Model text can carry links from what the model read (an issue, a doc): `<https://evil.example/x|https://docs.example/>`
in Slack's syntax or `[https://docs.example/](https://evil.example/x)` in Markdown (Slack's markdown block, Discord's
masked links) reads as one address and opens another. When a label looks like a URL or a host name and names another
host than the link's, the real host is added to it, so the reader sees where the click goes. Pure text functions
shared by the Slack and Discord renderers.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

SLACK_LINK = re.compile(r"<((?:https?|mailto|ftp)://[^|>\s]+|mailto:[^|>\s]+)\|([^>\n]*)>", re.IGNORECASE)
MARKDOWN_LINK = re.compile(
    r"\[([^\]\n]{1,500})\]\(\s*<?((?:https?|ftp)://[^)\s>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)", re.IGNORECASE
)
HOST_LIKE = re.compile(
    r"^(?:[a-z][a-z0-9+.-]*://)?(?:[^@/\s]+@)?((?:[a-z0-9-]+\.)+[a-z]{2,63}|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#]\S*)?$",
    re.IGNORECASE,
)
SHOWN = "{label} ({host})"


def host_of(text: str) -> str | None:
    """The host a label or URL names (`docs.example` for `https://docs.example/x`), lowercased; None for a label
    that does not look like an address."""
    candidate = text.strip().strip("<>").strip()
    if "://" in candidate:
        try:
            host = urlsplit(candidate).hostname
        except ValueError:
            return None
        return host.lower().rstrip(".") if host else None
    match = HOST_LIKE.match(candidate)
    return match.group(1).lower().rstrip(".") if match else None


def honest_label(label: str, url: str) -> str:
    """`label`, with the link's real host beside it when the label names another address."""
    shown, real = host_of(label), host_of(url)
    if shown is None or real is None or _same(shown, real):
        return label
    return SHOWN.format(label=label, host=real)


def slack_links(text: str) -> str:
    """Slack's `<url|label>` links in `text` with honest labels."""
    return SLACK_LINK.sub(lambda m: f"<{m.group(1)}|{honest_label(m.group(2), m.group(1))}>", text)


def markdown_links(text: str) -> str:
    """Markdown's `[label](url)` links in `text` with honest labels (Discord's masked links)."""
    return MARKDOWN_LINK.sub(lambda m: f"[{honest_label(m.group(1), m.group(2))}]({m.group(2)})", text)


def _same(a: str, b: str) -> bool:
    """One host written with or without `www.`."""
    return a.removeprefix("www.") == b.removeprefix("www.")
