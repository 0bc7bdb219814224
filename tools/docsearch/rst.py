"""reStructuredText (Sphinx) pages read as the Markdown the pages module parses.

Many Python projects write their docs for Sphinx: titles are underlined (and maybe overlined) with a
punctuation character, each new style one level deeper in the order the page first uses it; code
follows a `.. code-block:: python` directive or a paragraph ending in `::`; admonitions are
directives (`.. note::`) over an indented body; cross-references are roles (:ref:`Retries <retries>`,
:class:`~rq.job.Job`). Here titles become `#` headings, code blocks fences (kept whole), admonitions
a lead-in over their dedented body, autodoc and object directives a reference line naming the
object, roles and links their text; comments, targets and toctrees are dropped. Tabs (sphinx-tabs' `tab`,
`group-tab`, `code-tab`) read as their label over their body; a `:doc:` role shows the target page's title (given
by the caller, who has read every page); `|name|` is its `.. |name| replace::` text; a page's leading field list
(`:orphan:`, `:tocdepth: 2`) is metadata and dropped; a role or link whose text wraps over lines is joined first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")  # a line of one punctuation character, three or more
DIRECTIVE = re.compile(r"^(?P<indent> *)\.\.[ \t]+(?:(?P<domain>[\w-]+):)?(?P<name>[\w-]+)::[ \t]*(?P<args>.*)$")
COMMENT = re.compile(r"^(?P<indent> *)\.\.(?:[ \t]|$)")
OPTION = re.compile(r"^[ \t]+:[\w -]+:")
CODE = {"code-block", "code", "sourcecode", "highlight-block", "doctest", "testcode", "ipython", "parsed-literal"}
ADMONITIONS = {
    "note",
    "warning",
    "tip",
    "hint",
    "important",
    "caution",
    "danger",
    "attention",
    "error",
    "seealso",
    "admonition",
    "todo",
    "versionadded",
    "versionchanged",
    "deprecated",
    "topic",
    "sidebar",
    "rubric",
}
DROPPED = {
    "toctree",
    "contents",
    "index",
    "image",
    "include",
    "raw",
    "highlight",
    "currentmodule",
    "tabularcolumns",
    "only",
    "meta",
    "sectnum",
    "literalinclude",
    "figure",
    "role",
    "default-role",
    "title",
    "graphviz",
}
OBJECTS = re.compile(
    r"^(?:auto(?:class|function|method|attribute|data|exception|module|decorator|property)|"
    r"class|function|method|attribute|data|exception|module|decorator|property|classmethod|"
    r"staticmethod|envvar|option|program|cmdoption|describe|object)$"
)
VERSIONED = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
}
ROLE = re.compile(r":(?:[\w-]+:)*[\w-]+:`([^`]+)`")
LINK = re.compile(r"`([^`<]+?)\s*<[^`>]+>`__?|`([^`]+)`__?")
LITERAL = re.compile(r"``(.+?)``")
SUBSTITUTION = re.compile(r"\|([\w -]+)\|_?")
DEFINITION = re.compile(r"^\.\.[ \t]+\|(?P<name>[\w -]+)\|[ \t]+replace::[ \t]*(?P<text>.*)$")
FIELD = re.compile(r"^:[\w-]+:(?:[ \t].*)?$")  # a field list line: `:orphan:`, `:tocdepth: 2`
# A role, link or reference whose text runs onto the next lines (prose is wrapped anywhere) is joined into one line:
# a role's start or a link's closing `_ marks it; a literal (``) never starts one, a blank line ends the search.
WRAPPED = re.compile(r"(:(?:[\w-]+:)*[\w-]+:`|(?<![`\w])`(?!`))([^`]{1,300}?)(`_{0,2})")
KEPT = re.compile(r"\x00(\d+)\x00")  # a literal or code role set aside while links are read (`inline`)
TABS = {"tab", "group-tab"}
CODE_ROLES = re.compile(
    r"^(?:py:)?(?:class|func|meth|attr|mod|exc|obj|data|const|envvar|option|file|command|program|code|kbd|samp)$"
)


@dataclass
class _Page:
    """What reading one page needs besides its lines: title styles in order of use, substitutions, page titles."""

    substitutions: dict[str, str] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)  # doc id (file stem) -> title, for `:doc:` roles
    levels: list[tuple[str, bool]] = field(default_factory=list)


def rst_to_markdown(text: str, titles: Mapping[str, str] | None = None) -> str:
    """A reStructuredText page as Markdown: headings, fences, plain prose. `titles`: other pages' titles by doc id."""
    lines = _lines(text)
    page = _Page({m["name"]: m["text"].strip() for ln in lines if (m := DEFINITION.match(ln))}, titles or {})
    return "\n".join(_block(lines, page, top=True))


def rst_title(text: str) -> str:
    """The page's title as `rst_to_markdown` reads it (its first section title), or ''."""
    lines = _lines(text)
    return next((inline(found[0]) for i in range(len(lines)) if (found := _title(lines, i))), "")


def _lines(text: str) -> list[str]:
    """The page's lines, wrapped roles and links joined, without its leading field list (metadata)."""
    lines = WRAPPED.sub(_joined, text.expandtabs(4)).splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip()), len(lines))
    end = start
    while end < len(lines) and FIELD.match(lines[end]):
        end += 1
    return lines[:start] + lines[end:]


def _joined(found: re.Match[str]) -> str:
    opening, inner, closing = found.groups()
    if "\n" not in inner or re.search(r"\n[ \t]*\n", inner) or (opening == "`" and not closing.endswith("_")):
        return found.group(0)
    return opening + re.sub(r"[ \t]*\n[ \t]*", " ", inner) + closing


def _block(lines: list[str], page: _Page, top: bool = False) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        title = _title(lines, i) if top else None
        if title is not None:
            text, style, used = title
            if style not in page.levels:
                page.levels.append(style)
            out.append(f"{'#' * min(page.levels.index(style) + 1, 6)} {inline(text, page)}")
            i += used
            continue
        if top and ADORNMENT.match(line) and not (i + 1 < len(lines) and lines[i + 1].strip()):
            i += 1  # a transition (horizontal rule)
            continue
        directive = DIRECTIVE.match(line)
        if directive or COMMENT.match(line):
            indent = len((directive or COMMENT.match(line)).group("indent"))  # type: ignore[union-attr]
            end = _body_end(lines, i + 1, indent)
            if directive:
                out += _directive(directive, lines[i + 1 : end], page)
            i = end
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            end = _body_end(lines, i + 1, _indent(line))
            body = _dedent(lines[i + 1 : end])
            prose = line.rstrip()[:-2].rstrip()
            if prose:
                out.append(inline(prose + ("" if prose.endswith(":") else ":"), page))
            if body:
                out += ["", "```", *body, "```"]
            i = end
            continue
        out.append(inline(line, page))
        i += 1
    return out


def _title(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """(title text, adornment style, lines used) when a section title starts at line `i`."""
    line = lines[i]
    over = ADORNMENT.match(line)
    if over and i + 2 < len(lines) and lines[i + 1].strip() and (under := ADORNMENT.match(lines[i + 2])):
        if under.group(1) == over.group(1) and not ADORNMENT.match(lines[i + 1]):
            return lines[i + 1].strip(), (over.group(1), True), 3
    if (
        line.strip()
        and not line[0].isspace()
        and not over
        and i + 1 < len(lines)
        and (under := ADORNMENT.match(lines[i + 1]))
        and len(lines[i + 1].rstrip()) >= min(len(line.rstrip()), 3)
        and not (i > 0 and lines[i - 1].strip() and not ADORNMENT.match(lines[i - 1]))
    ):
        return line.strip(), (under.group(1), False), 2
    return None


def _directive(found: re.Match[str], body: list[str], page: _Page) -> list[str]:
    name, args, pad = found.group("name").lower(), found.group("args").strip(), found.group("indent")
    options = [ln for ln in body if OPTION.match(ln)]
    content = _dedent(body[len(options) :] if body[: len(options)] == options else body)
    if name in CODE or name == "code-tab":
        language, _, label = args.partition(" ")
        fence = ["", f"{pad}```{language}", *[pad + ln if ln else "" for ln in content], f"{pad}```", ""]
        return ["", f"{pad}{inline(label.strip() or language, page)}:", *fence] if name == "code-tab" else fence
    if name in DROPPED:
        caption = [ln for ln in content if ln.strip()] if name == "figure" else []
        return [inline(ln, page) for ln in caption]
    inner = [pad + ln if ln else "" for ln in _block(content, page)]
    if OBJECTS.match(name):
        return ["", f"{pad}Reference: `{args}`" if args else "", *inner, ""]
    if name in ADMONITIONS or (name in TABS and args):
        if name in VERSIONED:
            lead = f"{VERSIONED[name]} {args}".strip()
        else:
            titled = name in {"admonition", "topic", "sidebar", "rubric"} | TABS
            lead = inline(args, page) if titled and args else name.capitalize()
        first = next((k for k, ln in enumerate(inner) if ln.strip()), None)
        if first is not None and not inner[first].lstrip().startswith(("```", "#")):
            inner[first] = f"{pad}{lead}: {inner[first].strip()}"
            return ["", *inner, ""]
        return ["", f"{pad}{lead}:", *inner, ""]
    return ["", *inner, ""]  # an unknown directive: its text, without the marker


def _body_end(lines: list[str], start: int, indent: int) -> int:
    """The index after an indented body: blank lines and lines indented deeper than `indent`."""
    end = last = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
        if lines[end - 1].strip():
            last = end
    return last


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dedent(lines: list[str]) -> list[str]:
    """Lines without their common indentation, blank ends trimmed."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    depth = min((_indent(ln) for ln in lines if ln.strip()), default=0)
    return [ln[depth:] if ln.strip() else "" for ln in lines]


def inline(line: str, page: _Page | None = None) -> str:
    """A line's roles, links, literals and substitutions as their text (`code` kept in backticks). Literals and
    code roles are set aside first, so the backticks they end with never pair with a link's (``a`` ``__b__``)."""
    page = page or _Page()
    kept: list[str] = []

    def keep(code: str) -> str:
        kept.append(code)
        return f"\x00{len(kept) - 1}\x00"

    line = LITERAL.sub(lambda m: keep(m.group(1)), line)
    line = ROLE.sub(lambda m: _role(m, page, keep), line)
    line = LINK.sub(lambda m: (m.group(1) or m.group(2)).strip(), line)
    line = SUBSTITUTION.sub(lambda m: page.substitutions.get(m.group(1), m.group(1)), line)
    line = re.sub(r"(?<=[A-Za-z0-9])_(?=\s|$|[.,;:)])", "", line)  # a `name_` reference
    return KEPT.sub(lambda m: f"`{kept[int(m.group(1))]}`", line)


def _role(found: re.Match[str], page: _Page, keep: Callable[[str], str]) -> str:
    role = found.group(0)[1 : found.group(0).index("`") - 1].split(":")[-1]
    text = found.group(1)
    shown = re.match(r"^(.*?)\s*<[^<>]+>$", text)
    if shown and shown.group(1):
        text = shown.group(1)
    elif role == "doc":  # a page by its path: its title, as Sphinx shows it
        path = text.strip().strip("/")
        target = path.rsplit("/", 1)[-1]  # a folder of pages read as it is: the file's stem is its doc id
        flat = re.sub(r"[^a-z0-9_]+", "-", path.lower()).strip("-_")  # a synced folder's flat id (guides-setup)
        text = page.titles.get(flat) or page.titles.get(target, target)
    elif text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    text = text.lstrip("!")
    return keep(text) if CODE_ROLES.match(role) else text
