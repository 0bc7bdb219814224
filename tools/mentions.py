"""@mentions in what Atlas writes to GitHub, made inert: `@someone` and `@org/team` become inline code.

GitHub notifies everyone an issue or comment mentions as it is created, and a filed issue's words come from the asker's
thread or the model: a bot should ping nobody it was not asked to. A mention is wrapped as `` `@name` `` (as some GitHub
bots do: it stays readable, and GitHub never links or notifies inside code) rather than given a zero-width space after
the `@` (dependabot's way): the approval card shows every invisible character as its code point and counts it
(workers/approvals/visible_text.py), and the approver should read exactly what will be posted. Text already inside a
code block or code span is inert and left alone, as are email addresses (`a@b.com`: GitHub mentions only an `@` after a
space or punctuation). `&#64;name`, `&#x40;name` and `&commat;name` (GitHub decodes them, then mentions) are wrapped
too, as `@name`. Applying it twice changes nothing: the card shows it, the tool's checks apply it again.
"""

from __future__ import annotations

import json
import re

# GitHub's logins: letters, digits and single hyphens, at most 39; a team is `org/slug`. Not after a word character
# (an email address, `git@host`) or a `/` (a URL such as https://medium.com/@name).
_AT = r"(?:@|&#0*64;|&#[xX]0*40;|&commat;)"
MENTION = re.compile(
    rf"(?<![A-Za-z0-9_.+\-/]){_AT}([A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){{0,38}}(?:/[A-Za-z0-9][A-Za-z0-9_-]*)?)"
    r"(?![A-Za-z0-9_@])"
)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
BACKTICKS = re.compile(r"`+")
# The text fields each side-effect tool posts to GitHub as Markdown.
POSTED_TEXT: dict[str, tuple[str, ...]] = {"create_issue": ("title", "body"), "post_comment": ("body",)}


def neutralise(text: str) -> str:
    """`text` with each live mention wrapped as inline code; code blocks, code spans and emails unchanged."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        opened = FENCE.match(line)
        if fence is None and opened:
            out.append(_prose("".join(prose)))
            prose, fence = [], opened.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            closing = FENCE.match(line)
            if (
                closing
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= len(fence)
                and not line.strip(" \n\r`~")
            ):
                fence = None
        else:
            prose.append(line)
    out.append(_prose("".join(prose)))
    return "".join(out)


def _prose(text: str) -> str:
    """Wrap the mentions outside the code spans of `text` (a span: a run of backticks closed by the next as long)."""
    spans, unmatched, at = [], set(), 0
    while (opener := BACKTICKS.search(text, at)) is not None:
        closer = next(
            (m for m in BACKTICKS.finditer(text, opener.end()) if len(m.group()) == len(opener.group())), None
        )
        if closer is None:  # literal backticks
            unmatched.add(len(opener.group()))
            at = opener.end()
            continue
        spans.append((opener.start(), closer.end()))
        at = closer.end()
    # The wrap's backticks must not close a literal run before them: of a length no literal run has.
    lengths = unmatched and {len(m.group()) for m in BACKTICKS.finditer(text)}
    tick = "`" * next(n for n in range(1, len(text) + 2) if not lengths or n not in lengths)

    def wrap(m: re.Match[str]) -> str:
        if any(start <= m.start() < end for start, end in spans):
            return m.group()
        before = (
            " " if m.start() and text[m.start() - 1] == "`" else ""
        )  # a backtick next to the wrap would join its run
        after = " " if text[m.end() : m.end() + 1] == "`" else ""
        return f"{before}{tick}@{m.group(1)}{tick}{after}"

    return MENTION.sub(wrap, text)


def defuse_arguments(name: str, arguments: str) -> str:
    """A pending call's arguments as they will be posted: its posted text fields neutralised. Unchanged (the same
    string) when nothing in them is a live mention, or for tools that post no text to GitHub."""
    fields = POSTED_TEXT.get(name)
    if not fields:
        return arguments
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return arguments  # refused by the tool's checks anyway
    if not isinstance(parsed, dict):
        return arguments
    changed = {
        f: neutralise(parsed[f])
        for f in fields
        if isinstance(parsed.get(f), str) and neutralise(parsed[f]) != parsed[f]
    }
    return json.dumps({**parsed, **changed}, ensure_ascii=False) if changed else arguments
