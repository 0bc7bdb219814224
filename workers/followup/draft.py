"""An issue drafted from a thread without a model: the asker's words, the versions and tracebacks they gave,
a link back to the thread, and labels the repository already has.

Deterministic, so it works on a fresh machine and a maintainer can predict it: the title is the asker's
first line; the body quotes every question the asker wrote in the thread (mentions of the bot removed; what
others wrote is left out and the card names them; known secret shapes redacted, atlas/secret_shapes.py), lists the
versions named (`Python 3.11`, `orbit 2.3.1`), copies each traceback and code block whole, links the
thread, and ends with Atlas's answer folded away. Labels: `bug` when a traceback or an error was given,
and any label of the repository named as a word in the asker's text (never triage's own verdicts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from atlas.secret_shapes import redact
from atlas.text import clip
from tools.issue_filing import MAX_BODY_CHARS, MAX_TITLE_CHARS
from workers.runs.state import RunState

TITLE_CHARS = 90
ANSWER_CHARS = 1500
MAX_DRAFT_LABELS = 3
NEVER_SUGGESTED = frozenset({"duplicate", "invalid", "wontfix", "won't fix", "spam", "good first issue", "help wanted"})
MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>|<@!?\d+>")
SPACED_MENTION = re.compile(rf"[ \t]*(?:{MENTION.pattern})[ \t]*")
VERSION = re.compile(r"\b([A-Za-z][\w.+-]{1,30})\s+v?(\d+\.\d+(?:\.\d+)*(?:[-.]?(?:rc|a|b|dev|post)\d*)?)\b")
VERSION_WORDS = re.compile(r"(?i)^(version|v|release|on|in|to|from|at|and|or|with|since|after|before|of|is|was|the)$")
TRACEBACK = re.compile(
    r"Traceback \(most recent call last\):\n(?:[ \t]+.*\n?)*(?:[\w.]+(?:Error|Exception|Exit|Interrupt|Warning)\b.*)?"
)
FENCE = re.compile(r"```[\w-]*\n?(.*?)```", re.DOTALL)
REPORT = "### Report\n\nWhat the person who asked wrote in the thread:\n\n"
ERROR_WORDS = re.compile(r"(?i)\b(traceback|exception|error|crash(?:es|ed)?|fails?|failed|broken|bug)\b")


@dataclass(frozen=True)
class Draft:
    """What the approval card shows and Approve files."""

    title: str
    body: str
    labels: list[str]
    redacted: int = 0  # secrets replaced by a marker (the card says how many)
    left_out: tuple[str, ...] = ()  # who else wrote in the thread: not quoted (the card names them)

    def arguments(self) -> dict[str, object]:
        return {"title": self.title, "body": self.body, "labels": self.labels}


def unmentioned(text: str) -> str:
    """`text` without mentions of the bot (or anyone): a draft never pings. Only the spaces around a mention go,
    so a traceback's or a code block's indentation stays as it was written."""
    return SPACED_MENTION.sub(" ", text).strip()


@dataclass(frozen=True)
class Thread:
    """What of a thread a draft may quote: the asker's own messages and Atlas's answers to them, secrets
    redacted; who else wrote there (never quoted) and how many secrets were taken out."""

    said: list[tuple[str, str]]  # ("asker" | "atlas", text), oldest first, mentions of the bot removed
    left_out: tuple[str, ...]
    redacted: int

    @property
    def questions(self) -> list[str]:
        return [text for who, text in self.said if who == "asker" and text]

    @property
    def answer(self) -> str:
        return next((text for who, text in reversed(self.said) if who == "atlas"), "")


def thread_of(run: RunState) -> Thread:
    """The thread of `run` as a draft may use it: a message is the asker's when its turn was asked by the
    person who asked `run` (a turn recorded without its author counts only when `run` has none either)."""
    said: list[tuple[str, str]] = []
    others: list[str] = []
    count = 0
    turns = [(t.asker, t.question, t.answer) for t in run.history] + [(run.origin.user, run.question, run.answer or "")]
    for who, question, answer in turns:
        if who != run.origin.user:
            others.append(who or "someone")
            continue
        for kind, text in (("asker", unmentioned(question)), ("atlas", answer)):
            clean, found = redact(text)
            count += found
            said.append((kind, clean))
    return Thread(said, tuple(dict.fromkeys(others)), count)


def asked(run: RunState) -> list[str]:
    """Every question the asker wrote in the thread, oldest first, without mentions of the bot, redacted."""
    return thread_of(run).questions


def draft(run: RunState, link: str | None, known_labels: list[str], platform: str) -> Draft:
    """The issue for the thread of `run` (its asker's questions, earlier turns and answer)."""
    thread = thread_of(run)
    questions = thread.questions or [redact(unmentioned(run.question))[0] or "Reported in a chat thread"]
    words = "\n\n".join(questions)
    return Draft(
        title(questions[0]),
        body(questions, thread.answer, link, platform),
        labels(words, known_labels),
        thread.redacted,
        thread.left_out,
    )


def title(question: str) -> str:
    first = next(
        (line.strip() for line in question.splitlines() if line.strip() and not line.startswith("```")),
        question.strip(),
    )
    first = " ".join(first.split()) or "Reported in a chat thread"
    return clip(first, min(TITLE_CHARS, MAX_TITLE_CHARS), "...")


def versions(text: str) -> list[str]:
    """'Python 3.11', 'orbit 2.3.1': a name followed by a version, once each."""
    outside = FENCE.sub(" ", TRACEBACK.sub(" ", text))
    found = [f"{m.group(1)} {m.group(2)}" for m in VERSION.finditer(outside) if not VERSION_WORDS.match(m.group(1))]
    return list(dict.fromkeys(found))


def code_blocks(text: str) -> list[str]:
    """Each traceback and fenced block, whole (a traceback inside a fence counts once)."""
    blocks = [m.group(1).strip("\n") for m in FENCE.finditer(text)]
    rest = FENCE.sub(" ", text)
    blocks += [m.group(0).strip("\n") for m in TRACEBACK.finditer(rest)]
    return [b for b in dict.fromkeys(blocks) if b.strip()]


def labels(text: str, known: list[str]) -> list[str]:
    chosen: list[str] = []
    lowered = text.lower()
    if (TRACEBACK.search(text) or ERROR_WORDS.search(text)) and "bug" in known:
        chosen.append("bug")
    for name in known:
        if name in chosen or name.lower() in NEVER_SUGGESTED:
            continue
        word = name.split(":")[-1].lower()
        if len(word) > 2 and re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", lowered):
            chosen.append(name)
    return chosen[:MAX_DRAFT_LABELS]


def body(questions: list[str], answer: str, link: str | None, platform: str) -> str:
    quoted = "\n>\n".join(
        "\n".join(f"> {line}" if line else ">" for line in _prose(q).splitlines())
        for q in questions
        if _prose(q).strip()
    )
    return assemble(
        [
            header(link, platform),
            REPORT + quoted,
            versions_section(versions("\n".join(questions))),
            output_section(questions),
            answer_section(answer),
        ]
    )


def header(link: str | None, platform: str, *, by_model: bool = False) -> str:
    """The body's first line: where the issue comes from (and, drafted by the model, that a model summed it up)."""
    where = {"slack": "a Slack thread", "discord": "a Discord thread"}.get(platform, "a chat thread")
    how = " (summed up by a model; code and tracebacks quoted as given)" if by_model else ""
    return f"_Filed by Atlas from {where}{how}" + (f": {link}_" if link else "_")


def versions_section(named: list[str]) -> str:
    return "### Versions\n\n" + "\n".join(f"- {v}" for v in named) if named else ""


def output_section(questions: list[str]) -> str:
    """Each traceback and code block the asker gave, whole, fenced (a fence inside one cannot end it)."""
    blocks = [b for q in questions for b in code_blocks(q)]
    fenced = ["```\n" + b.replace("```", "~~~") + "\n```" for b in blocks]
    return "### Traceback and output\n\n" + "\n\n".join(fenced) if blocks else ""


def answer_section(answer: str) -> str:
    """Atlas's answer in the thread, folded away."""
    if not answer.strip():
        return ""
    return (
        "<details><summary>What Atlas answered in the thread</summary>\n\n"
        + clip(answer.strip(), ANSWER_CHARS, "...")
        + "\n\n</details>"
    )


def assemble(parts: list[str]) -> str:
    """The body from its sections (empty ones left out), within what a card shows whole."""
    text = "\n\n".join(p for p in parts if p)
    return text if len(text) <= MAX_BODY_CHARS else clip(text, MAX_BODY_CHARS - 200, "\n\n(cut: see the thread)")


def _prose(question: str) -> str:
    """The question without its code (quoted apart, under Traceback and output)."""
    return FENCE.sub("(code below)", TRACEBACK.sub("(traceback below)", question)).strip()
