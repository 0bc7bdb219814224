"""What a newcomer with no API key sees: the offline model's answers to the RQ plain-word questions.

The offline model (workers/agent/offline.py) runs its whole loop here (search_docs and search_issues,
get_doc_section, the answer) through the real tools, over ../shared/evals/rq with docs ranked as a
worker ranks them (hybrid when the embedding model is installed). For an answerable question the
answer must cite, as the section it quotes, one of the sections that answer it; for an unanswerable
one it must say it found nothing. The development sets (bench/evals/rq_docs.jsonl, asked with
rq_docs_unanswerable.jsonl, and rq_docs_dev2.jsonl in a row of its own) are what the answer's rules were tuned
on; the two held-out sets were not looked at while tuning, nor httpx's or requests' (Sphinx, read from
$BENCH_SPHINX_DOCS when set). Starlette's (bench/evals/starlette_answers_dev.jsonl, MkDocs, read from
$BENCH_STARLETTE_DOCS when set) is development. Issue questions ("has anyone reported X?",
bench/evals/rq_issues.jsonl for development, httpx_issues_holdout.jsonl held out) must cite, as the first
issue the answer names, one of the issues that answer them.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from bench.docs_questions import (
    DEV2,
    EVALS,
    HOLDOUT,
    HOLDOUT2,
    HTTPX,
    HTTPX_DATA,
    INTRO,
    RQ_DATA,
    SPHINX,
    STARLETTE_ANSWERS,
    UNANSWERABLE,
    cases,
    flat_data,
    sphinx_docs,
)
from bench.docs_questions import _answers as answers_question
from bench.report import Table
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.docsearch.pages import SEP
from workers.agent.model import ModelRequest
from workers.agent.offline import OfflineModel
from workers.wording import OFFLINE_FROM_DOCS, OFFLINE_NOTHING_ABOUT, OFFLINE_NOTHING_FOUND, OFFLINE_SEE_ALSO

# A heading may hold " (" or ":" ("0.15.0 (June 23, 2021)", "Usage:"): the page's title is the line's last
# parenthesis, which may hold one of its own (a release notes page titled "0.47.3 (August 24, 2025)").
TITLE = r" \((?:[^()]|\([^()]*\))*\)"
CITED = re.compile(
    re.escape(OFFLINE_FROM_DOCS.split("{")[0]) + r"`([a-z0-9][a-z0-9_-]*)`(?: § (.+))?" + TITLE + ":$", re.M
)
NAMED = re.compile(r"`([a-z0-9][a-z0-9_-]*)`(?: § (.+?))?" + TITLE + r"(?=\.$|, | and )")
SEE_ALSO = OFFLINE_SEE_ALSO.split("{")[0]
NOTHING = (OFFLINE_NOTHING_ABOUT.split("{")[0], OFFLINE_NOTHING_FOUND)
MAX_STEPS = 6
ANSWERED_GOAL, NOTHING_GOAL = 0.75, 6 / 7
FIRST_ISSUE = re.compile(r"#(\d+)\b")
RQ_ISSUES, HTTPX_ISSUES = EVALS.with_name("rq_issues.jsonl"), EVALS.with_name("httpx_issues_holdout.jsonl")


def run(data_dir: Path = RQ_DATA) -> list[Table]:
    if not (data_dir / "docs").is_dir():
        return [Table("offline answers (RQ)", ["set"], [], notes=[f"skipped: no RQ data at {data_dir}"])]
    ctx = ToolContext(corpus=open_corpus(data_dir, semantic=True))
    ctx.corpus.docs.warm()
    rows, notes = [], []
    more = (
        [UNANSWERABLE] if data_dir == RQ_DATA else []
    )  # not beside the smoke test's fixture: it is timed out at 120 s
    named = [("development", [EVALS, *more]), ("held-out (both)", [HOLDOUT, HOLDOUT2])]
    for name, sets in named + ([("development 2", [DEV2])] if more else []):
        asked = [case for evals in sets for case in cases(evals)]
        row, missed = score(ctx, asked)
        rows.append([name, *row])
        if name.startswith("development"):
            notes += missed
    smoke = 3 if data_dir != RQ_DATA else None  # the smoke test's fixture folder: three questions show the table works
    issue_rows = [["RQ issues (development)", *issue_score(ctx, cases(RQ_ISSUES)[:smoke])]]
    if (
        data_dir == RQ_DATA and (HTTPX_DATA / "docs").is_dir()
    ):  # a second project, never tuned on (not beside a fixture)
        other = ToolContext(corpus=open_corpus(HTTPX_DATA, semantic=True))
        other.corpus.docs.warm()
        rows.append(["httpx held-out", *score(other, cases(HTTPX))[0]])
        issue_rows.append(["httpx issues (held-out)", *issue_score(other, cases(HTTPX_ISSUES))])
    if data_dir == RQ_DATA and (sphinx := sphinx_docs()) is not None:  # a Sphinx project, never tuned on
        with tempfile.TemporaryDirectory() as scratch:
            third = ToolContext(corpus=open_corpus(flat_data(sphinx, Path(scratch)), semantic=True))
            third.corpus.docs.warm()
            rows.append(["requests held-out (Sphinx)", *score(third, cases(SPHINX))[0]])
    if data_dir == RQ_DATA and (starlette := sphinx_docs("BENCH_STARLETTE_DOCS")) is not None:  # development
        with tempfile.TemporaryDirectory() as scratch:
            fourth = ToolContext(corpus=open_corpus(flat_data(starlette, Path(scratch)), semantic=True))
            fourth.corpus.docs.warm()
            rows.append(["Starlette development (MkDocs)", *score(fourth, cases(STARLETTE_ANSWERS))[0]])
    met = all(float(r[3]) >= ANSWERED_GOAL and float(r[7]) >= NOTHING_GOAL for r in rows)  # type: ignore[arg-type]
    return [
        Table(
            title="offline answers (no model configured) to plain-word questions about RQ (and httpx, held out)",
            columns=[
                "set",
                "answerable",
                "right source",
                "share",
                "share, see-also too",
                "said nothing",
                "unanswerable",
                "nothing share",
            ],
            rows=rows,
            goal=f"right source on >= {ANSWERED_GOAL:.0%} of answerable; 'found nothing' on >= 6 of 7 unanswerable",
            met=met,
            notes=[
                "right source: the section the answer quotes is one that answers the question (or inside it);"
                " see-also too: or the other section it names",
                "said nothing: answerable questions answered with 'found nothing'",
                *notes[:20],
            ],
        ),
        Table(
            title="offline answers to issue questions ('has anyone reported ...?'): the first issue named",
            columns=["set", "questions", "right issue first", "share", "an issue named", "right issue anywhere"],
            rows=issue_rows,
            goal=f"the right issue first on >= {ANSWERED_GOAL:.0%}",
            met=all(float(r[3]) >= ANSWERED_GOAL for r in issue_rows),  # type: ignore[arg-type]
            notes=["right issue first: the first #N of the answer is one of the issues that answer the question"],
        ),
    ]


def issue_score(ctx: ToolContext, asked: list[dict[str, Any]]) -> list[object]:
    """How often the first issue the answer names is one that answers the question, names any, or names it anywhere."""
    first = named = anywhere = 0
    for case in asked:
        numbers = [int(n) for n in FIRST_ISSUE.findall(answer(ctx, str(case["question"])))]
        first += bool(numbers) and numbers[0] in case["issues"]
        named += bool(numbers)
        anywhere += any(n in case["issues"] for n in numbers)
    return [len(asked), first, round(first / (len(asked) or 1), 3), named, anywhere]


def score(ctx: ToolContext, asked: list[dict[str, Any]]) -> tuple[list[object], list[str]]:
    right = right_any = nothing_on_answerable = nothing = unanswerable = 0
    missed = []
    for case in asked:
        text = answer(ctx, str(case["question"]))
        said_nothing = text.startswith(NOTHING)
        if not case["answers"]:
            unanswerable += 1
            nothing += said_nothing
            if not said_nothing:
                missed.append(f"unanswerable, answered: {case['question'][:60]!r}")
            continue
        cited = CITED.search(text)
        ok = bool(cited) and cites_answer(ctx, text, cited.group(1), cited.group(2) or "", case["answers"])  # type: ignore[union-attr]
        also = [m for line in text.splitlines() if line.startswith(SEE_ALSO) for m in NAMED.findall(line)]
        right += ok
        right_any += ok or any(answers_question(d, h, a) for d, h in also for a in case["answers"])
        nothing_on_answerable += said_nothing
        if not ok:
            where = f"{cited.group(1)} § {cited.group(2)}" if cited else ("nothing" if said_nothing else "no doc")
            missed.append(f"answerable, cited {where}: {case['question'][:60]!r}")
    n = len(asked) - unanswerable
    return [
        n,
        right,
        round(right / (n or 1), 3),
        round(right_any / (n or 1), 3),
        nothing_on_answerable,
        f"{nothing}/{unanswerable}",
        round(nothing / (unanswerable or 1), 3),
    ], missed


def cites_answer(ctx: ToolContext, text: str, doc_id: str, heading: str, answers: list[list[str]]) -> bool:
    """Does the answer cite a section that answers: one of `answers` or inside it, or a section holding one
    whose quote comes from that one's own text? A parent cited for its lead paragraph (its read is cut
    before the subsection that answers) is not the right source, though search counts it as a hit."""
    for want in answers:
        if not answers_question(doc_id, heading, want):
            continue
        if want[1] in (heading, INTRO) or heading.startswith(want[1] + SEP):
            return True
        own = dispatch(v2_registry(), "get_doc_section", json.dumps({"doc_id": want[0], "heading": want[1]}), ctx).text
        quoted = [ln for ln in _quoted(text) if ln != "…"]
        if quoted and all(line in own for line in quoted):
            return True
    return False


def _quoted(text: str) -> list[str]:
    """The prose the answer quotes from the section it cites: the `> ` lines right under its "From the docs" line."""
    lines = text.splitlines()
    start = next((i + 1 for i, ln in enumerate(lines) if CITED.match(ln)), len(lines))
    out: list[str] = []
    for line in lines[start:]:
        if not line.startswith("> "):
            break
        out.append(line[2:].strip())
    return out


def answer(ctx: ToolContext, question: str) -> str:
    """The offline model's final answer to `question`, its tool calls run through the real tools."""
    model, registry = OfflineModel(), v2_registry()
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": question}]
    for _ in range(MAX_STEPS):
        reply = model.respond(ModelRequest(instructions="", input=items, tools=[]))
        if not reply.calls:
            return reply.text
        items += reply.output
        for call in reply.calls:
            out = dispatch(registry, call["name"], call["arguments"], ctx)
            items.append({"type": "function_call_output", "call_id": call["call_id"], "output": out.text})
    return model.respond(ModelRequest(instructions="", input=items, tools=[], tool_choice="none")).text


if __name__ == "__main__":
    import sys

    print(json.dumps(answer(ToolContext(corpus=open_corpus(RQ_DATA, semantic=True)), " ".join(sys.argv[1:]))))
