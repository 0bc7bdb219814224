"""Markdown docs as pages of sections, from any heading layout.

Every ATX heading (`#` to `######`, outside code fences) opens a section; a section's path is its
parent headings and its own (`Connections › Sentinel support` when a page is all `###`, or
`Job Callbacks › Success Callback`). The title is the front matter's `title`, else a leading `# `
line (which is then not a section), else the first heading, else the file name. Site markup
(Liquid, kramdown attributes, HTML comments) is stripped first, never inside code fences.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from datasets.tracker_db import DatasetError
from tools.docsearch.markup import FENCE, strip_markup
from tools.docsearch.mkdocs import read_mkdocs
from tools.docsearch.rst import rst_title, rst_to_markdown

DOC_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
SEP = " › "
DOC_SUFFIXES = (".md", ".rst")  # Markdown (MkDocs, Jekyll, plain) and reStructuredText (Sphinx)
# A section whose text (its subsections included) fits one get_doc_section read is searched as one
# unit; a longer one is searched as its own lines plus each subsection: the deepest split that is needed.
UNIT_CHARS = 1500
SYNCED_URL = re.compile(r"^\.\. atlas-url: (\S+)[ \t]*$", re.M)  # a synced Sphinx page's url (datasets/github/docs.py)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Section:
    """One heading's block: `body` is its own text, `text` adds its subsections (heading lines included)."""

    doc_id: str
    title: str
    path: tuple[str, ...]
    level: int
    body: str
    text: str
    children: tuple[str, ...] = ()  # the headings paths (joined) of its direct subsections

    @property
    def heading(self) -> str:
        """The heading path as tools print it: 'Parent › Child'."""
        return SEP.join(self.path)


@dataclass(frozen=True)
class Page:
    """One doc: its id (the file stem), front matter, intro text and every section in page order."""

    doc_id: str
    title: str
    applies_to: str
    intro: str
    sections: tuple[Section, ...] = field(default_factory=tuple)
    url: str = ""  # front matter `url`: the doc's page where it lives (synced GitHub docs)

    def headings(self) -> list[str]:
        """Every section's heading path, in page order."""
        return [s.heading for s in self.sections]

    def top(self) -> list[Section]:
        """The outermost sections (the page's table of contents)."""
        return [s for s in self.sections if len(s.path) == 1]

    def section(self, heading: str) -> Section | None:
        """The section at exactly this heading path."""
        return next((s for s in self.sections if s.heading == heading), None)

    def units(self) -> list[Section]:
        """The sections search ranks: whole when they fit one read, else own text plus each subsection."""
        out: list[Section] = []

        def visit(section: Section) -> None:
            if not section.children or len(section.text) <= UNIT_CHARS:
                out.append(section)
                return
            out.append(Section(section.doc_id, section.title, section.path, section.level, section.body, section.body))
            for child in section.children:
                visit(self.section(child))  # type: ignore[arg-type]

        for section in self.top():
            visit(section)
        return out


def load_pages(docs_dir: Path) -> dict[str, Page]:
    """Every `<doc_id>.md` and `<doc_id>.rst` (Sphinx) in `docs_dir` (not recursive), keyed by doc id, in
    name order; of a `.md` and a `.rst` with the same id the `.md` is read."""
    texts: dict[str, tuple[Path, str]] = {}
    for path in sorted(p for p in Path(docs_dir).glob("*") if p.suffix in DOC_SUFFIXES):
        if path.is_file() and DOC_ID.match(path.stem) and path.stem not in texts:
            try:
                texts[path.stem] = path, path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start + 1})") from None
    # A Sphinx page names another by its path (:doc:`install`) and shows its title: every title is read first.
    titles = {doc_id: rst_title(text) for doc_id, (path, text) in texts.items() if path.suffix == ".rst"}
    pages: dict[str, Page] = {}
    for doc_id, (path, text) in sorted(texts.items(), key=lambda item: item[1][0].suffix == ".rst"):  # Markdown first
        pages[doc_id] = parse_page(doc_id, _rst(text, titles) if path.suffix == ".rst" else text)
        titles.setdefault(doc_id, pages[doc_id].title)
        for problem in layout_problems(pages[doc_id]):
            log.warning("docs/%s: %s", path.name, problem)
    return {doc_id: pages[doc_id] for doc_id in texts}


def _rst(text: str, titles: dict[str, str]) -> str:
    """A Sphinx page as Markdown, with the url a sync gave it as front matter (reStructuredText has none)."""
    urls = SYNCED_URL.findall(text)
    markdown = rst_to_markdown(text, titles)
    return f"---\nurl: {urls[-1]}\n---\n{markdown}" if urls else markdown


def parse_page(doc_id: str, markdown: str) -> Page:
    """Split one markdown document into front matter, title, intro and sections."""
    meta, body = _front_matter(markdown)
    title = meta.get("title", "")
    intro: list[str] = []
    blocks: list[tuple[int, str, list[str]]] = []  # (level, heading, own lines)
    lines = read_mkdocs(strip_markup(body).splitlines())
    single_h1 = sum(1 for level in _levels(lines) if level == 1) == 1
    in_fence = False
    for line in lines:
        match = None if in_fence else HEADING.match(line)
        if FENCE.match(line):
            in_fence = not in_fence
        elif match:
            level, heading = len(match.group(1)), match.group(2).strip()
            if level == 1 and not blocks and single_h1:  # a leading, lone `# ` line is the title
                title = title or heading
                continue
            if not blocks and not title:
                title = heading
            blocks.append((level, heading, []))
            continue
        (blocks[-1][2] if blocks else intro).append(line)
    return Page(
        doc_id,
        _plain_title(title) or doc_id,
        meta.get("applies_to", ""),
        "\n".join(intro).strip(),
        _sections(doc_id, _plain_title(title) or doc_id, blocks),
        meta.get("url", ""),
    )


def _sections(doc_id: str, title: str, blocks: list[tuple[int, str, list[str]]]) -> tuple[Section, ...]:
    """Heading blocks to sections with paths; a repeated path gets ' (2)' so each stays reachable."""
    paths: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    seen: dict[tuple[str, ...], int] = {}
    for level, heading, _ in blocks:
        while stack and stack[-1][0] >= level:
            stack.pop()
        path = (*[h for _, h in stack], heading)
        seen[path] = seen.get(path, 0) + 1
        if seen[path] > 1:
            heading = f"{heading} ({seen[path]})"
            path = (*path[:-1], heading)
        stack.append((level, heading))
        paths.append(path)
    out: list[Section] = []
    for i, (level, _, lines) in enumerate(blocks):
        end = next((j for j in range(i + 1, len(blocks)) if blocks[j][0] <= level), len(blocks))
        inner = [f"{'#' * blocks[j][0]} {blocks[j][1]}\n" + "\n".join(blocks[j][2]) for j in range(i + 1, end)]
        body = "\n".join(lines).strip()
        children = tuple(SEP.join(paths[j]) for j in range(i + 1, end) if len(paths[j]) == len(paths[i]) + 1)
        out.append(Section(doc_id, title, paths[i], level, body, "\n\n".join([body, *inner]).strip(), children))
    return tuple(out)


def layout_problems(page: Page) -> list[str]:
    """What in a page's layout readers should know: a repeated heading path (an unclosed code fence is
    not one: as in CommonMark, it runs to the end of the page, and `# comments` in it are no headings)."""
    problems = []
    repeated = sorted({s.heading for s in page.sections if re.search(r" \(\d+\)$", s.path[-1])})
    if repeated:
        problems.append(f"repeated heading paths, reachable with a ' (2)' suffix: {', '.join(repeated)}")
    return problems


def plain_heading(heading: str) -> str:
    """A heading or heading path as people type it: no backticks, '#' or trailing ':', '›' '>' '/' alike, lowercased."""
    text = " ".join(heading.replace("`", "").lstrip("#").split()).lower()
    return re.sub(r"\s*(?:›|>|/)\s*", "/", text).strip(" :")


def _levels(lines: list[str]) -> list[int]:
    """The level of every heading line outside code fences."""
    levels, in_fence = [], False
    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := HEADING.match(line)):
            levels.append(len(match.group(1)))
    return levels


def _plain_title(title: str) -> str:
    return " ".join(title.replace("`", "").split())


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
            return meta, "\n".join(lines[end + 1 :])
    return {}, markdown
