"""Tool-output tokens per call: v1 lookup_issue (whole issues as JSON) vs v2 search_issues concise and detailed.

Same queries as the reference in ../shared/evals/README.md; v2 concise and detailed use the same
limit (10, the value the search_issues description suggests). Tokens are o200k (atlas.tokens.count).
"""

from __future__ import annotations

import json
from pathlib import Path

from atlas.cli.tool_eval import OWN_CASES, SHARED_CASES
from atlas.settings import DEFAULT_DATA
from atlas.tokens import count
from bench.report import Table
from tools import ToolContext, dispatch, open_corpus, v1_registry, v2_registry
from workers.agent.context import count_items
from workers.agent.instructions import INSTRUCTIONS
from workers.agent.toolset import offered

CASES = [SHARED_CASES, OWN_CASES]  # what `atlas eval tools` asks (the shared file beside the repository, when present)
FIXED_GOAL = 2_500

QUERIES = ["DST ran twice", "reconnect storm redis", "dashboard oidc", "ORB-1101 lease expired", "memory leak"]
LIMIT = 10


def run(data_dir: Path = DEFAULT_DATA) -> list[Table]:
    if not (data_dir / "issues" / "issues.jsonl").is_file():
        return [
            Table("tool output tokens", ["query"], [], notes=[f"no issues at {data_dir}: generate the dataset first"])
        ]
    ctx = ToolContext(corpus=open_corpus(data_dir), run_id="bench-tools-tokens")
    v1, v2 = v1_registry(), v2_registry()
    rows = []
    for query in QUERIES:
        legacy = dispatch(v1, "lookup_issue", json.dumps({"q": query}), ctx)
        concise, detailed = (
            dispatch(v2, "search_issues", json.dumps({"query": query, "state": None, "limit": LIMIT, "detail": d}), ctx)
            for d in ("concise", "detailed")
        )
        assert legacy.ok and concise.ok and detailed.ok, (legacy.text, concise.text, detailed.text)
        a, b, c = count(legacy.text), count(concise.text), count(detailed.text)
        rows.append([query, a, b, c, round(a / b, 1)])
    mean_concise = sum(r[2] for r in rows) / len(rows)
    ratio = sum(r[1] for r in rows) / sum(r[2] for r in rows)
    rows.append(
        [
            "mean",
            round(sum(r[1] for r in rows) / len(rows)),
            round(mean_concise),
            round(sum(r[3] for r in rows) / len(rows)),
            round(ratio, 1),
        ]
    )
    return [_output_table(rows, mean_concise, ratio), _fixed_table()]


def _fixed_table() -> Table:
    """The instructions and tool definitions a first call carries, per tool-choice question
    (workers/agent/toolset.py)."""
    definitions = v2_registry().definitions()
    every = count_items([], INSTRUCTIONS, definitions)
    questions = [
        json.loads(line)["question"]
        for path in CASES
        if path.is_file()
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    fixed = sorted(
        count_items([], INSTRUCTIONS, offered(definitions, [{"type": "message", "role": "user", "content": q}]))
        for q in questions
    )
    rows = [
        ["every tool", len(definitions), every, every],
        ["offered per question (questions)", len(fixed), round(sum(fixed) / max(len(fixed), 1)), max(fixed, default=0)],
    ]
    return Table(
        title="instructions and tool definitions per first call (o200k), over the tool-choice questions",
        columns=["set", "tools / questions", "mean tokens", "most tokens"],
        rows=rows,
        goal=f"every question's first call <= {FIXED_GOAL:,} tokens",
        met=bool(fixed) and max(fixed) <= FIXED_GOAL,
        notes=[
            "questions: ../shared/evals/tool_choice.jsonl and bench/evals/tool_choice_atlas.jsonl",
            "offered: the docs and issue tools, calculate and read_more, plus a group the words ask for",
        ],
    )


def _output_table(rows: list[list[object]], mean_concise: float, ratio: float) -> Table:
    return Table(
        title=f"tool output tokens per call (o200k; v2 limit {LIMIT})",
        columns=["query", "v1 lookup_issue", "v2 concise", "v2 detailed", "v1 / concise"],
        rows=rows,
        goal="v2 concise <= 250 tokens on average and v1 >= 10x concise",
        met=mean_concise <= 250 and ratio >= 10,
        notes=[
            "v1 lookup_issue returns its 5 best issues whole (body and every comment) as JSON",
            "reference (gpt-6-luna run): v1 1,197-34,816; v2 concise 173-234; v2 detailed 954-1,268",
        ],
    )
