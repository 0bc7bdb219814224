"""Context benchmark: what a six-step investigation of the longest issue bills, per strategy.

A scripted model replays the same run under four strategies: no management, clearing old results,
clearing plus truncating results over 1,500 tokens at execution, and all of that plus compaction.
Billed input is the sum over the six model calls of each request's input tokens (items,
instructions and tool schemas, as `workers.agent.context.count_items` estimates them). The pairing
invariant is checked on every request of every strategy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas import tokens
from bench.report import Table
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.context import StashPage
from tools.results import cut
from workers.agent.compaction import compact, extractive_summary
from workers.agent.context import ContextBudget, clear_results, count_items, fit
from workers.agent.instructions import INSTRUCTIONS
from workers.agent.pairing import Item, check_pairing
from workers.agent.toolset import offered

DATA = Path(__file__).resolve().parents[1] / "datasets" / "orbit"
QUESTION = "Users report a reconnect storm against Redis after upgrading. What causes it, and how do we fix it?"
SHARE_GOAL = 0.15
FIXED_GOAL = 2_500  # the instructions and the tools offered, per call (issue 40: about 4,000 with every tool)
SQUEEZE = 2_000
"""Items-only limit the final transcript is compacted toward, as in the reference figure."""
TIGHT = ContextBudget(window=29_000)
"""An input limit of 4,000: small enough that clearing and compaction act on this run."""
STRATEGIES = ("no management", "clear only", "clear+truncate", "clear+truncate+compaction")
Run = Callable[[str, str], str]


@dataclass
class Replay:
    """One strategy's run: billed tokens per request and what the context layer did."""

    billed: list[int] = field(default_factory=list)
    cleared: int = 0
    compactions: int = 0
    problems: list[str] = field(default_factory=list)
    fixed: list[int] = field(default_factory=list)  # each request's instructions and tool definitions
    final_items: list[Item] = field(default_factory=list)


def _issues() -> list[dict[str, Any]]:
    path = DATA / "issues" / "issues.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _full_issue(issue: dict[str, Any]) -> str:
    """get_issue(include=[body, comments]) without its clipping: the whole body and every comment."""
    comments = issue.get("comments") or []
    lines = [
        f"#{issue['id']} {issue['title']}",
        f"state: {issue.get('state')} | author: {issue.get('author')} | comments: {len(comments)}",
    ]
    lines.append("body:\n" + (issue.get("body") or "").strip())
    lines.append(f"comments ({len(comments)}):")
    lines += [
        f"[{n}] {c.get('author')}, {(c.get('created_at') or '-')[:10]}: {(c.get('body') or '').strip()}"
        for n, c in enumerate(comments, 1)
    ]
    return "\n".join(lines)


def _toolbox() -> tuple[Run, list[dict[str, Any]]]:
    """Run a call with the real v2 tools over the Orbit data, and the tools' schemas."""
    registry = v2_registry()
    ctx = ToolContext(corpus=open_corpus(DATA), stash=None, run_id="bench-context")
    return (lambda name, arguments: dispatch(registry, name, arguments, ctx).text), registry.definitions()


def script(run: Run, issue: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """The five calls of the investigation (name, arguments, result); the sixth model call answers."""
    steps: list[tuple[str, dict[str, Any], str]] = []

    def call(name: str, arguments: dict[str, Any], result: str | None = None) -> str:
        text = result if result is not None else run(name, json.dumps(arguments))
        steps.append((name, arguments, text))
        return text

    call("search_issues", {"query": "reconnect storm redis", "state": None, "limit": 10, "detail": "concise"})
    call("get_issue", {"issue_id": issue["id"], "include": ["body", "comments"]}, _full_issue(issue))
    hits = call("search_docs", {"query": "redis broker reconnect backoff", "k": 5})
    first = next((line[2:] for line in hits.splitlines() if line.startswith("- ")), "redis-broker § Reconnects [x]")
    doc_id, _, rest = first.partition(" § ")
    heading = rest.rsplit(" [", 1)[0] if rest else None
    call("get_doc_section", {"doc_id": doc_id.split(" ")[0], "heading": heading})
    call(
        "search_issues", {"query": "reconnect storm fixed upgrade", "state": "closed", "limit": 5, "detail": "concise"}
    )
    return steps


class _NamedRef:
    """Stands in for a run's stash: the replay measures what the model is shown, never pages."""

    def __init__(self, ref: str) -> None:
        self.ref = ref

    def put(self, text: str) -> str:
        return self.ref

    def page(self, ref: str, offset: int) -> StashPage | None:
        return None


def replay(
    steps: list[tuple[str, dict[str, Any], str]], strategy: str, budget: ContextBudget, tools: list[dict[str, Any]]
) -> Replay:
    """Run the scripted investigation under one strategy, as the agent loop would."""
    out = Replay()
    items: list[Item] = [{"type": "message", "role": "user", "content": QUESTION}]
    every = tools
    for index in range(len(steps) + 1):
        tools = offered(every, items)  # what the agent loop offers this call (workers/agent/toolset.py)
        out.fixed.append(count_items([], INSTRUCTIONS, tools))
        if strategy == "clear+truncate+compaction":
            fitted = fit(items, budget=budget, instructions=INSTRUCTIONS, tools=tools, summarize=extractive_summary)
            items, out.cleared, out.compactions = (
                fitted.items,
                out.cleared + fitted.cleared,
                out.compactions + fitted.compacted,
            )
        elif strategy != "no management" and count_items(items, INSTRUCTIONS, tools) > budget.input_limit:
            # fit's first stage alone: clearing without compaction.
            items, cleared = clear_results(items, budget.keep_recent_results)
            out.cleared += cleared
        out.problems += [f"{strategy}, call {index + 1}: {p}" for p in check_pairing(items)]
        out.billed.append(count_items(items, INSTRUCTIONS, tools))
        if index == len(steps):
            break
        name, arguments, result = steps[index]
        if "truncate" in strategy:
            result = cut(result, budget.result_token_limit, _NamedRef(f"r{index}"))
        call_id = f"call_{index}"
        items = items + [
            {"type": "reasoning", "id": f"rs_{index}", "summary": [{"type": "summary_text", "text": f"Next: {name}."}]},
            {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            },
            {"type": "function_call_output", "call_id": call_id, "output": result},
        ]
    out.final_items = items
    return out


def _strategy_table(title: str, runs: dict[str, Replay], budget: ContextBudget, goal: bool) -> Table:
    base = sum(runs["no management"].billed)
    rows = [
        [
            name,
            sum(r.billed),
            f"{100 * sum(r.billed) / base:.1f}%",
            max(r.billed),
            sum(b > budget.input_limit for b in r.billed),
            r.cleared,
            r.compactions,
            len(r.problems),
        ]
        for name, r in runs.items()
    ]
    table = Table(
        title,
        [
            "strategy",
            "billed input",
            "of none",
            "largest request",
            "over limit",
            "cleared",
            "compactions",
            "pairing problems",
        ],
        rows,
    )
    if goal:
        fixed = max(runs["no management"].fixed)
        table.goal = (
            f"clear+truncate bills <= {SHARE_GOAL:.0%} of no management; instructions and tools <= {FIXED_GOAL:,} "
            "tokens per call; no pairing problem on any request"
        )
        table.met = (
            sum(runs["clear+truncate"].billed) <= SHARE_GOAL * base
            and fixed <= FIXED_GOAL
            and not any(r.problems for r in runs.values())
        )
    return table


def run() -> list[Table]:
    runner, tools = _toolbox()
    issue = max(_issues(), key=lambda i: len(_full_issue(i)))
    steps = script(runner, issue)
    sizes = ", ".join(f"{name} {tokens.count(text):,}" for name, _, text in steps)
    clipped = tokens.count(runner("get_issue", json.dumps(steps[1][1])))
    notes = [
        f"issue #{issue['id']} ({issue['title']}); results in o200k tokens: {sizes}",
        f"results are the real v2 tools' over {DATA.name}, except get_issue, rendered unclipped (body + all"
        f" {len(issue.get('comments') or [])} comments) as the worst case; the "
        f"v2 tool clips it itself, to {clipped:,} tokens",
        "reasoning items carry a one-line summary and no encrypted content (the model "
        "is scripted); compaction summaries are extractive_summary",
    ]
    tables = []
    for title, budget, goal in (
        (
            "context: six-step investigation, default budget (64,000 window, 25,000 output reserve)",
            ContextBudget(),
            True,
        ),
        (
            f"context: the same run, input limit {TIGHT.input_limit:,} (window "
            f"{TIGHT.window:,}), where clearing and compaction act",
            TIGHT,
            False,
        ),
    ):
        runs = {name: replay(steps, name, budget, tools) for name in STRATEGIES}
        table = _strategy_table(title, runs, budget, goal)
        table.notes = [f"billed per call ({name}): {', '.join(f'{b:,}' for b in r.billed)}" for name, r in runs.items()]
        every = count_items([], INSTRUCTIONS, tools)
        table.notes.append(
            f"instructions and tools offered per call: {', '.join(f'{f:,}' for f in runs['no management'].fixed)} "
            f"(every one of the {len(tools)} tools: {every:,}; workers/agent/toolset.py)"
        )
        table.notes += [p for r in runs.values() for p in r.problems]
        if budget is TIGHT:
            table.notes.append(
                "over limit after fit: the question, the latest turn and the summary "
                "alone exceed the limit (fit's tokens_after says so)"
            )
        tables.append(table)
    tables[0].notes += notes
    largest = max(replay(steps, "no management", ContextBudget(), tools).billed)
    if largest <= ContextBudget().input_limit:
        tables[0].notes.append(
            f"the largest request ({largest:,}) fits the {ContextBudget().input_limit:,} input "
            "limit, so fit() never acts at this budget: truncation makes the saving"
        )

    final = replay(steps, "no management", ContextBudget(), tools).final_items
    cleared, _ = clear_results(final, 2)
    compacted = (
        compact(
            cleared,
            originals=final,
            keep_recent_results=2,
            limit=SQUEEZE,
            measure=count_items,
            summarize=extractive_summary,
        )
        or cleared
    )
    rows = [
        [name, count_items(t), count_items(t, INSTRUCTIONS, tools), len(t), len(check_pairing(t))]
        for name, t in (
            ("as sent (no management)", final),
            ("cleared (last 2 results kept)", cleared),
            ("cleared + compacted", compacted),
        )
    ]
    tables.append(
        Table(
            f"context: the final transcript (before the answer call), compaction forced toward {SQUEEZE:,} item tokens",
            ["transcript", "item tokens", "request tokens", "items", "pairing problems"],
            rows,
            goal=f"cleared + compacted fits {SQUEEZE:,} item tokens with no pairing problem",
            met=count_items(compacted) <= SQUEEZE and not check_pairing(compacted),
            notes=[
                "request tokens add the instructions and tool schemas; fit() would "
                "stop after clearing here, since that already fits",
                "compacted: question + one extractive summary + the last two results' turns",
            ],
        )
    )
    return tables
