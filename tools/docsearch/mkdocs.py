"""MkDocs and Material markup read as the prose it renders to: admonitions, tabs, autodoc directives, raw HTML.

An MkDocs site writes `!!! note "Title"` (or `??? tip`, collapsible) over a body indented four spaces,
`=== "Tab"` over a tab's indented body, and `::: httpx.Client` (mkdocstrings, mkautodoc) where the
site inserts the object's docstring from the code, with its options indented below. Read as
Markdown, the marker lines become snippets and the indented bodies code blocks. Here an admonition
or tab becomes its title as a lead-in (`Note: ...`) over its body, dedented so the code fences in it
are fences again; a directive becomes one reference line naming the object; a line of raw HTML keeps
only its text (an `<h1>`-`<h6>` line becomes a heading). Code fences are copied untouched.
"""

from __future__ import annotations

import html
import re

from tools.docsearch.markup import FENCE

ADMONITION = re.compile(r'^(?P<indent> *)(?:!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[^"\n]*"(?P<title>[^"]*)")?[ \t]*$')
TAB = re.compile(r'^(?P<indent> *)===\+?[ \t]+"(?P<title>[^"]*)"[ \t]*$')
AUTODOC = re.compile(r"^(?P<indent> *):::[ \t]+(?P<name>[\w.:-]+)[ \t]*$")
# Only real HTML elements: `<Response [200 OK]>` in a console example is not a tag.
ELEMENTS = """a abbr b br center code div em figcaption figure h1 h2 h3 h4 h5 h6 hr i img kbd li ol p picture
    pre small source span strong sub sup table tbody td th thead tr u ul details summary video iframe""".split()
TAG = re.compile(r"</?(?:" + "|".join(ELEMENTS) + r")\b[^<>]*/?>", re.IGNORECASE)
HTML_HEADING = re.compile(r"^\s*<h([1-6])\b[^>]*>(.*?)</h\1>\s*$", re.IGNORECASE | re.DOTALL)
RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-f]+|[a-z]+\d*);", re.IGNORECASE)
INDENT = 4


def read_mkdocs(lines: list[str]) -> list[str]:
    """`lines` with MkDocs blocks turned into plain Markdown (code fences untouched)."""
    out: list[str] = []
    i, in_fence = 0, False
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        opener = ADMONITION.match(line) or TAB.match(line) or AUTODOC.match(line)
        if opener is None:
            i = _html(lines, i, out)
            continue
        indent = len(opener.group("indent"))
        end = _block_end(lines, i + 1, indent + INDENT)
        body = read_mkdocs([ln[INDENT:] if ln.strip() else "" for ln in lines[i + 1 : end]])
        pad = " " * indent
        if "name" in opener.groupdict():  # an autodoc directive: its indented lines are options, not prose
            out.append(f"{pad}Reference: `{opener.group('name')}`")
        else:
            title = opener.group("title")
            lead = (title if title is not None else opener.group("kind").capitalize()).strip()
            out += _lead_in(lead, [f"{pad}{ln}" if ln else "" for ln in _trim(body)], pad)
        out.append("")
        i = end
    return _squeeze(out)


def _squeeze(lines: list[str]) -> list[str]:
    """Runs of blank lines outside code fences as one (a block's own blank lines are kept in code)."""
    out: list[str] = []
    in_fence = False
    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
        if not in_fence and not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    return out


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The index after a block's body: the lines indented at least `indent` (blank lines inside it included)."""
    end = last = start
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip(" ")) >= indent):
        end += 1
        if lines[end - 1].strip():
            last = end
    return last


def _trim(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _lead_in(lead: str, body: list[str], pad: str) -> list[str]:
    """'Title: first prose line' over the rest of the body; the title alone above a body that starts with code."""
    if not lead:
        return body
    if body and not FENCE.match(body[0]) and body[0].strip()[:1].isalnum():
        return [f"{pad}{lead}: {body[0].strip()}", *body[1:]]
    return [f"{pad}{lead}:", *body]


def _html(lines: list[str], i: int, out: list[str]) -> int:
    """Copy line `i` with its HTML reduced to text (a heading element spanning lines joined); the next index."""
    line = lines[i]
    if RULE.match(line) and (i == 0 or not lines[i - 1].strip()):  # a horizontal rule, not a setext underline
        return i + 1
    if not TAG.search(line):
        out.append(html.unescape(line) if ENTITY.search(line) else line)
        return i + 1
    opened = re.match(r"^\s*<h([1-6])\b[^>]*>\s*$", line, re.IGNORECASE)
    if opened:  # <h1 ...> / HTTPX / </h1> over three lines
        close = next(
            (j for j in range(i + 1, min(i + 6, len(lines))) if re.search(rf"</h{opened.group(1)}>", lines[j], re.I)),
            None,
        )
        if close is not None:
            line, i = " ".join(ln.strip() for ln in lines[i : close + 1]), close
    heading = HTML_HEADING.match(line)
    if heading:
        text = _text(heading.group(2))
        if text:
            out.append(f"{'#' * int(heading.group(1))} {text}")
        return i + 1
    text = _text(line)
    if text.strip():
        out.append(text)
    return i + 1


def _text(fragment: str) -> str:
    """An HTML fragment's text: tags dropped (`<code>` kept as backticks), entities decoded, spaces joined."""
    fragment = re.sub(r"</?code\b[^>]*>", "`", fragment, flags=re.IGNORECASE)
    return " ".join(html.unescape(TAG.sub(" ", fragment)).split())
