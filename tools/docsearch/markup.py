"""Site-generator markup stripped from docs prose: Liquid tags, kramdown attribute lists, HTML comments.

Real project docs are written for Jekyll and friends; `{{site.baseurl}}`, `{: .warning}` and
`<!-- TODO -->` mean nothing to the model or to a Slack reader and only add noise to search.
Code fences are copied untouched: a `{{ var }}` inside an example is part of the example.
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^\s*(```|~~~)")
LIQUID = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
ATTRIBUTES = re.compile(r"\{:[^}\n]*\}")  # kramdown IAL / ALD / extension: {: .warning}, {:target="_blank"}
COMMENT_START, COMMENT_END = "<!--", "-->"


def strip_markup(markdown: str) -> str:
    """`markdown` without Liquid, kramdown attribute lists and HTML comments outside code fences."""
    out: list[str] = []
    in_fence = in_comment = False
    for line in markdown.splitlines():
        if not in_comment and FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_fence:
            out.append(line)
            continue
        line, in_comment = _drop_comments(line, in_comment)
        cleaned = ATTRIBUTES.sub("", LIQUID.sub("", line))
        if cleaned.strip() or not line.strip():
            out.append(cleaned.rstrip() if cleaned != line else line)
    return "\n".join(out)


def _drop_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """The parts of `line` outside HTML comments, and whether a comment is still open at its end."""
    kept = ""
    while line:
        if in_comment:
            end = line.find(COMMENT_END)
            if end < 0:
                return kept, True
            line, in_comment = line[end + len(COMMENT_END) :], False
        else:
            start = line.find(COMMENT_START)
            if start < 0:
                return kept + line, False
            kept, line, in_comment = kept + line[:start], line[start + len(COMMENT_START) :], True
    return kept, in_comment
