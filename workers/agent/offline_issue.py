"""Reading a `get_issue` result for the offline model: the body, and the comment that resolved it, summed up.

A closed issue's answer is usually in its comments, not its body: the last comment by someone other
than the reporter (the reporter's own last word tends to be "works, thanks"), else the last comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workers import wording as phrases

_META = re.compile(r"^state: (\w+) \| author: ([^|]+?) \|")
_COMMENT = re.compile(r"^\[(\d+)\] ([^,\]]+), [^:]*: ?(.*)$")
_NOTE = re.compile(r"^\[[^\]]*(?:cut|left out|more)[^\]]*\]$")


@dataclass(frozen=True)
class Comment:
    number: int
    author: str
    lines: list[str]


@dataclass
class IssueText:
    """The parts of a `get_issue` output the offline model quotes from."""

    header: str
    state: str = ""
    author: str = ""
    body: list[str] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)

    def resolution(self) -> Comment | None:
        """The comment that closed the matter, for a closed issue; None for an open one."""
        if self.state != "closed" or not self.comments:
            return None
        others = [c for c in self.comments if c.author != self.author]
        return (others or self.comments)[-1]


def parse(lines: list[str]) -> IssueText:
    """`lines` are the tool output's non-empty lines (code fences already dropped)."""
    issue = IssueText(header=lines[0] if lines else "")
    part = "head"
    for line in lines[1:]:
        meta = _META.match(line)
        if part == "head" and meta:
            issue.state, issue.author = meta.group(1), meta.group(2).strip()
        elif line.startswith("body:"):
            part = "body"
        elif re.match(r"^comments \(\d+\):$", line):
            part = "comments"
        elif _NOTE.match(line.strip()):
            continue
        elif part == "body":
            issue.body.append(line)
        elif part == "comments":
            found = _COMMENT.match(line)
            if found:
                issue.comments.append(Comment(int(found.group(1)), found.group(2).strip(), [found.group(3)]))
            elif issue.comments:
                issue.comments[-1].lines.append(line)
    return issue


def summary(lines: list[str], words: set[str]) -> str:
    """The issue's header, the body lines that match the question and, for a closed issue, the
    comment that resolved it: that is where the answer is."""
    issue = parse(lines)
    resolution = issue.resolution()
    text = (
        phrases.OFFLINE_ISSUE.format(header=issue.header)
        + "\n"
        + quote(best_lines(issue.body, words, 4 if resolution else 6))
    )
    if resolution:
        text += "\n" + phrases.OFFLINE_RESOLUTION.format(author=resolution.author, number=resolution.number)
        text += "\n" + quote(resolution.lines[:8])
    return text


def quote(lines: list[str]) -> str:
    """Quoted lines: shown, not cited (`workers.agent.sources` cites only outside quotes)."""
    return "\n".join(f"> {ln.strip()}" for ln in lines)


def best_lines(lines: list[str], words: set[str], most: int = 4) -> list[str]:
    """The lines sharing most words with the question, in their original order."""
    scored = [(sum(w in ln.lower() for w in words), i) for i, ln in enumerate(lines)]
    best = sorted(i for score, i in sorted(scored, key=lambda p: (-p[0], p[1]))[:most] if score > 0)
    return [lines[i] for i in best] or lines[:most]
