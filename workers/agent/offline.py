"""The offline model: a deterministic stand-in for a language model, used when none is configured.

It plugs into the same loop through the same tools: search the docs and the issues with the
question, read the best doc section, then answer extractively, quoting the lines that match the
question and citing doc ids and issue numbers. It never invents text beyond short connecting
phrases, and it says that no language model is configured.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from atlas import tokens
from atlas.text import text_of
from tools.hand_off import NAME as HAND_OFF  # offered in help channels only
from workers import wording as phrases
from workers.agent import offline_absent, offline_docs, offline_solved
from workers.agent.instructions import WRAP_UP
from workers.agent.model import ModelReply, ModelRequest
from workers.agent.offline_evidence import Question, is_issue_question, keywords, subject
from workers.agent.offline_issue import summary as issue_summary
from workers.agent.offline_knowledge import reply as knowledge_reply
from workers.runs.state import Usage
from workers.wording import OFFLINE_NOTE

_ISSUE = re.compile(r"(?:issue\s*#?|#)(\d{1,6})\b", re.IGNORECASE)
WRAP_UP_PREFIX = WRAP_UP.split("(")[0]  # how the loop's wrap-up note starts: not a question
_SMALL_TALK = re.compile(r"^\s*(thanks|thank you|hi|hello|hey|ok|okay|bye|cheers)\b", re.IGNORECASE)
_DOC_HIT = re.compile(r"^- ([a-z0-9][a-z0-9-]*)(?: § (.+?))? \[[^\]]*\]:")
_ISSUE_HIT = re.compile(r"^#\d+ ")
_ISSUE_TOP = re.compile(r"^#(\d+) \[", re.M)  # search_issues' first hit
_TOOL_NOTE = re.compile(r"^\[(?:cut|more|body cut)\b[^\]]*\]$")  # how to read on: for the model, not the reader
READS = 2  # doc sections read per question: search's best two (its first is right about 6 times in 10)
MAX_QUERY = 500  # search_docs reads this much of a query


class OfflineModel:
    """Implements the Model port without a network: search, read, quote. `kept`: whether any solved thread is kept
    as knowledge (asked once per question: none kept, no search of them)."""

    def __init__(self, kept: Callable[[], bool] = lambda: False) -> None:
        self.kept = kept

    def respond(self, request: ModelRequest) -> ModelReply:
        question, turn = _current_turn(request.input)
        calls = {item["call_id"]: item for item in turn if item.get("type") == "function_call"}
        outputs = {
            item["call_id"]: str(item.get("output", "")) for item in turn if item.get("type") == "function_call_output"
        }
        done: dict[str, str] = {}  # each tool's first output (the issue search, not a word looked up after it)
        for cid in outputs:
            if cid in calls:
                done.setdefault(calls[cid]["name"], outputs[cid])
        step = len({item.get("call_id") for item in turn if item.get("type") == "function_call"})
        usage = Usage(input_tokens=tokens.count(json.dumps(request.input)), output_tokens=0)

        if (known := knowledge_reply(question, done, request.tool_choice != "none")) is not None:
            return (
                self._calls(self._first(question, known), step, usage)
                if isinstance(known, list)
                else self._text(known, usage)
            )
        if request.tool_choice == "none" or "get_doc_section" in done or "get_issue" in done:
            return self._answer(question, turn, usage, request, step)
        if _SMALL_TALK.match(question) and len(question) < 60:
            return self._text(phrases.OFFLINE_SMALL_TALK, usage)
        if not done or _code_unavailable(done):  # no code synced: its hint says to answer from the docs and issues
            issue = _ISSUE.search(question)
            if issue:
                return self._calls(
                    [("get_issue", {"issue_id": int(issue.group(1)), "include": ["body", "comments", "labels"]})],
                    step,
                    usage,
                )
            words = " ".join(keywords(subject(question))) or question  # the issues' index matches words only
            return self._calls(
                self._first(
                    question,
                    [
                        ("search_docs", {"query": _search_query(question), "k": 3}),
                        ("search_issues", {"query": words, "state": None, "limit": 5, "detail": "concise"}),
                    ],
                ),
                step,
                usage,
            )
        best = _best_docs(done.get("search_docs", ""))
        reads: list[tuple[str, dict[str, Any]]] = [("get_doc_section", {"doc_id": d, "heading": h}) for d, h in best]
        top = _ISSUE_TOP.search(done.get("search_issues", "")) if is_issue_question(question) else None
        if top:  # "has anyone reported X?": the issue search found first is the answer's lead, read it
            reads = [("get_issue", {"issue_id": int(top.group(1)), "include": ["body", "comments"]}), *reads[:1]]
        if not reads:
            return self._answer(question, turn, usage, request, step)
        return self._calls(reads, step, usage)

    def _first(self, question: str, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        """A docs search's first calls, with the solved threads' search when any is kept (offline_solved)."""
        return offline_solved.with_search(question, calls, self.kept)

    def _calls(self, calls: list[tuple[str, dict[str, Any]]], step: int, usage: Usage) -> ModelReply:
        output = [
            {
                "type": "function_call",
                "id": f"fc_offline_{step}_{i}",
                "call_id": f"call_offline_{step}_{i}",
                "name": name,
                "arguments": json.dumps(args),
                "status": "completed",
            }
            for i, (name, args) in enumerate(calls)
        ]
        usage.output_tokens = sum(tokens.count(item["arguments"]) for item in output)
        return ModelReply.of(output, usage)

    def _text(self, text: str, usage: Usage) -> ModelReply:
        usage.output_tokens = tokens.count(text)
        item = {
            "type": "message",
            "id": "msg_offline",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return ModelReply.of([item], usage)

    def _answer(
        self, question: str, turn: list[dict[str, Any]], usage: Usage, request: ModelRequest, step: int
    ) -> ModelReply:
        """The extractive answer; where `hand_off` is offered (a help channel) and nothing relevant was
        found, the call that hands the question to the maintainers instead."""
        names = {item["call_id"]: item["name"] for item in turn if item.get("type") == "function_call"}
        results = [
            (names.get(item["call_id"], ""), str(item.get("output", "")))
            for item in turn
            if item.get("type") == "function_call_output"
        ]
        text, confident = verdict(question, results)
        if not confident and request.tool_choice != "none" and any(t.get("name") == HAND_OFF for t in request.tools):
            return self._calls([(HAND_OFF, {"looked_at": looked_at(turn)})], step, usage)
        calls = [item for item in turn if item.get("type") == "function_call"]
        if (
            not confident
            and request.tool_choice != "none"
            and (todo := offline_absent.checks(_absent(question, results), calls))
        ):
            return self._calls(todo, step, usage)  # each word to be named looked up in every issue first
        return self._text(text, usage)


def _code_unavailable(done: dict[str, str]) -> bool:
    """Only a code search was made, and it failed (no source is synced for this project)."""
    return set(done) == {"search_code"} and done["search_code"].startswith("Error")


def _current_turn(items: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The latest real question and the items after it (a wrap-up note is not a question)."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if item.get("type", "message") == "message" and item.get("role") == "user":
            text = text_of(item.get("content"), sep="")
            if not text.startswith(WRAP_UP_PREFIX):
                return text, items[index + 1 :]
    return "", items


def _search_query(question: str) -> str:
    """What to search with: the question as asked (search ranks by meaning as well as by words, and the
    words around the keywords carry that meaning), on one line."""
    return " ".join(question.split())[:MAX_QUERY]


def _best_docs(search_output: str, most: int = READS) -> list[tuple[str, str | None]]:
    """The first `most` search_docs hits (`- doc_id § Heading [Title]: snippet`), in the search's order
    (re-ranking them by shared words did worse on the development questions: bench/offline_answers.py)."""
    hits = [found for line in search_output.splitlines() if (found := _DOC_HIT.match(line))]
    return [(f.group(1), (f.group(2) or "").strip() or None) for f in hits[:most]]


def compose(question: str, results: list[tuple[str, str]]) -> str:
    """The extractive answer to `question` from the tools' `results` (see `verdict`)."""
    return verdict(question, results)[0]


def looked_at(turn: list[dict[str, Any]]) -> str:
    """One line of what the calls of this turn searched and read, for a hand-off."""
    searched: list[str] = []
    read: list[str] = []
    for item in turn:
        if item.get("type") != "function_call":
            continue
        try:
            args = json.loads(item.get("arguments") or "{}")
        except ValueError:
            continue
        if item["name"] == "search_docs" and args.get("query"):
            searched.append(str(args["query"])[:120])
        elif item["name"] == "get_doc_section":
            read.append(str(args.get("doc_id")) + (f" § {args['heading']}" if args.get("heading") else ""))
        elif item["name"] == "get_issue":
            read.append(f"#{args.get('issue_id')}")
    line = f"searched the docs and issues for “{searched[0]}”" if searched else "searched the docs and issues"
    if read:
        line += "; read " + ", ".join(read[:3])
    return line + "; nothing there answers it"


def verdict(question: str, results: list[tuple[str, str]]) -> tuple[str, bool]:
    """The answer and whether it rests on anything found (False: it says nothing relevant was found).

    Quote the best doc passage (`offline_docs`), list the issues that touch the question, and say
    plainly what nothing was found about when the data has nothing: a name no doc mentions and no issue
    has (`offline_absent` looks each word up), or the words search_docs judged the docs do not cover
    (tools/docsearch/confidence.py: calibrated on how many of the question's words no doc has and how close
    the best section is). Counting the
    question's words in the sections read, as this once did, said "found nothing" to answerable
    questions asked in plain words."""
    asked = Question.of(question)
    words = {w.lower() for w in asked.keywords}
    results, looked_up = offline_absent.split(results)
    found = [(name, _shown_lines(name, output)) for name, output in results if not output.startswith("Error")]
    seen = ["\n".join(lines) for _, lines in found]
    solved = offline_solved.found(asked, results)  # the approved solved threads search_history showed
    absent = offline_absent.absent(asked, results, seen + [e.text for e in solved])  # no doc has it, nor any shown
    sections = [
        r
        for r in (
            offline_docs.read(out) for name, out in results if name == "get_doc_section" and not out.startswith("Error")
        )
        if r
    ]
    by_number = _ISSUE.search(question) is not None
    issues = [lines for name, lines in found if name == "get_issue" and lines]
    if not by_number:  # an issue read for "has anyone reported X?" leads only if it is about X
        issues = [lines for lines in issues if asked.touched_by("\n".join(lines))]
    if absent and not issues:  # a name the data lacks, or the words search judged the docs do not cover
        return f"{offline_absent.nothing_about(question, absent, looked_up)}\n\n{OFFLINE_NOTE}", False
    parts = [issue_summary(lines, words) for lines in issues]  # asked for by number, or the first reported
    listed: list[str] = []
    for name, lines in found:
        if name != "search_issues":
            continue
        if issues and not by_number:  # an issue question: the search's order, the issue read left out
            listed += [ln for ln in lines if ln.split()[0] not in {f"#{n}" for n in _numbers(issues)}]
        elif asked.answered_by("\n".join(lines)) or not asked.absent_from(seen):
            listed += [ln for ln in lines if asked.touched_by(ln)]
    quoted = offline_docs.answer(asked, sections)
    best = next(iter(offline_docs.quotable(asked, sections)), None)  # the section `quoted` is from
    lead = None if issues and not by_number else offline_solved.lead(asked, solved, best.text if best else None)
    related = phrases.OFFLINE_RELATED + "\n" + "\n".join(f"- {ln}" for ln in listed[:5]) if listed else None
    if quoted and not (issues and not by_number):
        parts.insert(0, quoted)
    elif quoted:
        parts += [p for p in (related, quoted) if p]
        related = None
    if related:
        parts.append(related)
    if lead:
        parts.insert(0, offline_solved.quoted(lead))
    if also := [e for e in solved if e != lead]:
        parts.append(offline_solved.see_also(also))
    body = "\n\n".join(parts) if parts else offline_absent.nothing_about(question, [], [])
    return f"{body}\n\n{OFFLINE_NOTE}", bool(parts)


def _absent(question: str, results: list[tuple[str, str]]) -> list[str]:
    """The words a "found nothing" answer would name: no doc has them and no result shown does."""
    own = offline_absent.split(results)[0]
    seen = ["\n".join(_shown_lines(n, out)) for n, out in own if not out.startswith("Error")]
    asked = Question.of(question)
    return offline_absent.absent(asked, own, seen + [e.text for e in offline_solved.found(asked, own)])


def _numbers(issues: list[list[str]]) -> list[int]:
    """The numbers of the issues read (each get_issue output's first line is `#N title`)."""
    return [int(m.group(1)) for lines in issues if (m := re.match(r"^#(\d+) ", lines[0]))]


def _shown_lines(name: str, output: str) -> list[str]:
    """A result's lines worth quoting: no code fences, no read-on notes, and of a search only its hits
    (its first line echoes the question's own words)."""
    lines = [
        ln.rstrip()
        for ln in output.splitlines()
        if ln.strip() and not ln.startswith("```") and not _TOOL_NOTE.match(ln)
    ]
    if name.startswith("search_"):
        lines = [ln.strip() for ln in lines if _DOC_HIT.match(ln.strip()) or _ISSUE_HIT.match(ln.strip())]
    return lines
