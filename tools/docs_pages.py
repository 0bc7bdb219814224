"""Markdown docs as pages of sections: front matter, `# Title`, intro, `## ` sections.

`### ` subsections belong to their `## ` section (their text is part of it) and are remembered so
a subsection can be addressed as 'Section / Subsection'. Lines inside code fences are never headings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

DOC_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Subsection:
    """A `### ` block inside a section."""

    heading: str
    text: str


@dataclass(frozen=True)
class Section:
    """A `## ` section; `text` includes its subsections."""

    doc_id: str
    title: str
    heading: str
    text: str
    subsections: tuple[Subsection, ...] = ()


@dataclass(frozen=True)
class Page:
    """One doc: its id (the file stem), front matter, intro text and sections in order."""

    doc_id: str
    title: str
    applies_to: str
    intro: str
    sections: tuple[Section, ...] = field(default_factory=tuple)
    url: str = ""  # front matter `url`: the doc's page where it lives (synced GitHub docs)

    def headings(self) -> list[str]:
        """The `## ` headings, in page order."""
        return [s.heading for s in self.sections]


def load_pages(docs_dir: Path) -> dict[str, Page]:
    """Every `<doc_id>.md` in `docs_dir` (not recursive), keyed by doc id, in name order."""
    pages: dict[str, Page] = {}
    for path in sorted(Path(docs_dir).glob("*.md")):
        if path.is_file() and DOC_ID.match(path.stem):
            pages[path.stem] = parse_page(path.stem, path.read_text(encoding="utf-8"))
    return pages


def parse_page(doc_id: str, markdown: str) -> Page:
    """Split one markdown document into front matter, title, intro and sections."""
    meta, body = _front_matter(markdown)
    title = meta.get("title", "")
    intro: list[str] = []
    blocks: list[tuple[str, list[str]]] = []  # (## heading, lines)
    in_fence = title_line_seen = False
    for line in body.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and not title_line_seen and not blocks and line.startswith("# "):
            title_line_seen = True
            title = title or line[2:].strip()
            continue
        elif not in_fence and line.startswith("## "):
            blocks.append((line[3:].strip(), []))
            continue
        (blocks[-1][1] if blocks else intro).append(line)
    sections = tuple(_section(doc_id, title, heading, lines) for heading, lines in blocks)
    return Page(doc_id, title or doc_id, meta.get("applies_to", ""), "\n".join(intro).strip(), sections, meta.get("url", ""))


def plain_heading(heading: str) -> str:
    """A heading as people type it: no backticks or leading '#', spaces collapsed, lowercased."""
    return " ".join(heading.replace("`", "").lstrip("#").split()).lower()


def _section(doc_id: str, title: str, heading: str, lines: list[str]) -> Section:
    subs: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and line.startswith("### "):
            subs.append((line[4:].strip(), []))
            continue
        if subs:
            subs[-1][1].append(line)
    subsections = tuple(Subsection(h, "\n".join(body).strip()) for h, body in subs)
    return Section(doc_id, title, heading, "\n".join(lines).strip(), subsections)


def _front_matter(markdown: str) -> tuple[dict[str, str], str]:
    lines = markdown.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, markdown
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            meta = {}
            for line in lines[1:end]:
                key, sep, value = line.partition(":")
                if sep:
                    meta[key.strip()] = value.strip().strip("\"'")
            return meta, "\n".join(lines[end + 1:])
    return {}, markdown
