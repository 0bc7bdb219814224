"""The console's page shell: a viewport for phones, one small stylesheet, the navigation, sign-out.

No script at all: pages are links and GET forms; the only POSTs are signing in and out and forgetting a solved thread.
"""

from __future__ import annotations

import time

from bot.console.sessions import Session
from bot.console.web import esc

NAV = (
    ("runs", "Runs"),
    ("usage", "Cost and use"),
    ("gaps", "Coverage gaps"),
    ("approvals", "Approvals and triage"),
    ("knowledge", "Knowledge"),
    ("triage", "Triage, live"),
    ("health", "Health"),
)

STYLE = """
:root { color-scheme: light dark; --line: #8884; --muted: #777; --accent: #3a6ea5; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; padding: 0 0 3em; }
header { display: flex; flex-wrap: wrap; gap: .4em 1em; align-items: center; padding: .6em 1em; \
border-bottom: 1px solid var(--line); }
header a { text-decoration: none; }
header a.on { font-weight: 600; text-decoration: underline; }
header .who { margin-left: auto; color: var(--muted); font-size: .9em; }
header form { display: inline; }
main { padding: 0 1em; max-width: 72em; }
h1 { font-size: 1.3em; }
h2 { font-size: 1.1em; margin-top: 1.6em; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; font-size: .92em; }
th, td { text-align: left; padding: .35em .5em; border-bottom: 1px solid var(--line); vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
pre { white-space: pre-wrap; word-break: break-word; background: #8881; padding: .6em; border-radius: 4px; \
font-size: .88em; max-height: 24em; overflow: auto; }
.muted { color: var(--muted); }
.tag { display: inline-block; padding: 0 .4em; border-radius: 3px; background: #8882; font-size: .85em; }
.bad { background: #c333; } .good { background: #3a33; }
form.filters { display: flex; flex-wrap: wrap; gap: .5em; align-items: end; margin: 1em 0; }
form.filters label { display: flex; flex-direction: column; font-size: .85em; }
input, select, button { font: inherit; padding: .3em .4em; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .6em .8em; margin: .6em 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(19em, 1fr)); gap: 1em; }
svg.chart { width: 100%; height: auto; }
svg.chart rect { fill: var(--accent); }
.signin { max-width: 24em; margin: 4em auto; }
.signin input { width: 100%; margin: .4em 0; }
@media (max-width: 40em) { .wide { display: none; } body { font-size: 14px; } }
"""


ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#3a6ea5"/>'
    '<circle cx="8" cy="8" r="3" fill="#fff"/></svg>'
)


def when(stamp: float | None) -> str:
    """A time as UTC, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(stamp)) if stamp else ""


def page(title: str, body: str, *, prefix: str, session: Session | None = None, current: str = "") -> str:
    """A whole page around `body` (already escaped markup)."""
    nav = ""
    if session is not None:
        links = " ".join(
            f'<a href="{prefix}/{slug}"{" class=on" if slug == current else ""}>{esc(label)}</a>' for slug, label in NAV
        )
        signout = (
            (
                f'<form method="post" action="{prefix}/signout">'
                f'<input type="hidden" name="csrf" value="{esc(session.csrf)}">'
                '<button type="submit">Sign out</button></form>'
            )
            if session.how != "bearer"
            else ""
        )
        nav = f'<header><strong>Atlas</strong> {links}<span class="who">{esc(session.name)}</span>{signout}</header>'
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{esc(title)} · Atlas console</title><link rel="stylesheet" href="{prefix}/style.css">'
        f'<link rel="icon" href="{prefix}/icon.svg" type="image/svg+xml"></head>'
        f"<body>{nav}<main>{body}</main></body></html>"
    )


def table(head: list[str], rows: list[list[str]], numeric: frozenset[int] = frozenset()) -> str:
    """A table of already-escaped cells; `numeric` columns align right."""
    th = "".join(f"<th{' class=n' if i in numeric else ''}>{h}</th>" for i, h in enumerate(head))
    body = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f'<div class="scroll"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'
