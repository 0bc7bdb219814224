"""A solved thread's knowledge entry drafted from the thread's own words, without a model: the question the
asker first asked, the answer that solved it, the links that answer gave, and the thread's permalink.

Nobody in the thread is named in the entry: mentions (`<@U123>`, `<@!123>`, `@name`) are removed, and so is
each name the platform gave for the people in the thread (the asker, who marked it solved), and a greeting
or thanks that names someone ("Hi Maria,", "thanks Sam!").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from atlas.text import clip
from workers.followup.draft import MENTION
from workers.runs.state import RunState

QUESTION_CHARS = 400
ANSWER_CHARS = 3000
MAX_LINKS = 8
HANDLE = re.compile(r"(?<![\w.@/])@[\w.-]{2,32}\b")
CHANNEL = re.compile(r"<#[A-Z0-9]+\|([^>]*)>|<#[A-Z0-9]+>")
URL = re.compile(r"https?://[^\s()<>`'\"|]+[^\s()<>`'\".,;:|]")
LEAD = re.compile(r"(?i)^(?:hi|hello|hey)(?: all| everyone| folks| team)?[,!.]?\s+")
SENTENCE = re.compile(r"(?<=[.?!:;])\s+")
GREETING = re.compile(r"(?im)^\s*(?:hi|hello|hey|thanks|thank you|cheers)\b[^\n]{0,40}?[,!.:]?\s*$")


@dataclass(frozen=True)
class EntryDraft:
    """What the card shows and Approve keeps."""

    question: str
    answer: str
    links: tuple[str, ...] = field(default_factory=tuple)
    permalink: str = ""

    def arguments(self) -> dict[str, object]:
        return {
            "question": self.question,
            "answer": self.answer,
            "links": list(self.links),
            "permalink": self.permalink,
        }


def anonymous(text: str, names: Iterable[str] = ()) -> str:
    """`text` with nobody named: mentions, @handles, lines that only greet or thank, and each of `names` removed."""
    out = MENTION.sub("", text)
    out = CHANNEL.sub(lambda m: f"#{m.group(1)}" if m.group(1) else "a channel", out)
    out = HANDLE.sub("", out)
    for name in sorted({n.strip() for n in names if len(n.strip()) >= 2}, key=len, reverse=True):
        out = re.sub(rf"(?i)(?<!\w){re.escape(name)}(?!\w)", "", out)
    out = GREETING.sub("", out)
    out = re.sub(r"[ \t]+([?.,!:;])", r"\1", out)  # what a removed name or mention left before a stop
    return "\n".join(
        " ".join(line.split()) if not line.startswith(("    ", "\t")) else line.rstrip()
        for line in out.strip().splitlines()
    ).strip()


def draft(run: RunState, permalink: str | None, names: Iterable[str] = ()) -> EntryDraft:
    """The entry of the thread of `run` (the answer that solved it), from the thread's words."""
    names = list(names)
    first = run.history[0].question if run.history else run.question
    question = plain_question(anonymous(first, names)) or plain_question(anonymous(run.question, names))
    answer = anonymous(run.answer or "", names)
    return EntryDraft(clip(question, QUESTION_CHARS), clip(answer, ANSWER_CHARS), links_of(run), permalink or "")


def plain_question(text: str) -> str:
    """The question in plain words: the sentences that ask (end in '?'), else all of it, on one line."""
    sentences = [x for x in SENTENCE.split(" ".join(text.split())) if x]
    asking = [x for x in sentences if x.endswith("?")]
    said = LEAD.sub("", " ".join(asking or sentences))
    return said[:1].upper() + said[1:]


def links_of(run: RunState) -> tuple[str, ...]:
    """The links the answer gave: URLs in it, then its sources' own pages, once each."""
    found = URL.findall(run.answer or "") + list(run.source_urls.values())
    return tuple(dict.fromkeys(found))[:MAX_LINKS]
