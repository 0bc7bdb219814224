"""`atlas eval tools`: does the model pick the right first tool? v1 vs v2 toolsets, N repeats.

Each case is one question and the tool a good assistant calls first (None: answer directly). One
model call per case and toolset; the chosen call is executed to count its output tokens. The v1
set has other names, so a v2 expectation is met in v1 by the legacy tool that serves that purpose.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from atlas import tokens
from atlas.errors import ConfigError
from atlas.project_settings import REPO_ROOT
from atlas.settings import Settings
from tools import open_corpus, v1_registry, v2_registry
from tools.context import ToolContext
from tools.dispatch import dispatch
from tools.registry import Registry
from workers.agent.cost import dollars
from workers.agent.instructions import INSTRUCTIONS
from workers.agent.model import Model, ModelRequest, ResponsesModel
from workers.agent.toolset import offered
from workers.runs.state import Usage

SHARED_CASES = REPO_ROOT.parent / "shared" / "evals" / "tool_choice.jsonl"
OWN_CASES = REPO_ROOT / "bench" / "evals" / "tool_choice_atlas.jsonl"
V1_EQUIVALENT: dict[str | None, set[str | None]] = {
    None: {None},
    "search_docs": {"search"},
    "search_issues": {"lookup_issue", "search"},
    "get_issue": {"get", "lookup_issue"},
    "get_doc_section": {"get", "search"},
    "calculate": {"calc"},
}


@dataclass(frozen=True)
class Case:
    question: str
    expected: str | None


@dataclass
class Tally:
    """One toolset's results over all repeats."""

    correct_per_repeat: list[int] = field(default_factory=list)
    output_tokens: list[int] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


def load_cases(paths: list[Path]) -> list[Case]:
    """Cases from JSON Lines files; a malformed line is a ConfigError naming the file and line."""
    cases = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if line.strip():
                try:
                    row = json.loads(line)
                    cases.append(Case(row["question"], row["expected_tool"]))
                except (ValueError, KeyError, TypeError):
                    raise ConfigError(
                        f"{path}:{number}: a case is a JSON object with question and expected_tool"
                    ) from None
    return cases


def first_tool(model: Model, registry: Registry, question: str) -> tuple[str | None, str, Usage]:
    """The first tool the model calls for `question` (None if it answers), its arguments, the usage."""
    asked: list[dict[str, object]] = [{"type": "message", "role": "user", "content": question}]
    reply = model.respond(
        ModelRequest(
            instructions=INSTRUCTIONS,
            input=asked,
            tools=offered(
                registry.definitions(), asked
            ),  # what a run's first call is offered (workers/agent/toolset.py)
            max_output_tokens=2_000,
        )
    )
    if not reply.calls:
        return None, "", reply.usage
    call = reply.calls[0]
    return call["name"], call.get("arguments", ""), reply.usage


def evaluate(settings: Settings, model: Model, cases: list[Case], repeats: int) -> dict[str, Tally]:
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home, settings.semantic_docs))
    results: dict[str, Tally] = {}
    for label, registry in (("v1", v1_registry()), ("v2", v2_registry())):
        tally = Tally()
        for _ in range(repeats):
            correct = 0
            for case in cases:
                name, arguments, usage = first_tool(model, registry, case.question)
                tally.usage.add(usage)
                wanted = V1_EQUIVALENT[case.expected] if label == "v1" else {case.expected}
                correct += name in wanted
                if name is not None:
                    tally.output_tokens.append(tokens.count(dispatch(registry, name, arguments, ctx).text))
            tally.correct_per_repeat.append(correct)
        results[label] = tally
    return results


def report(settings: Settings, results: dict[str, Tally], cases: int) -> str:
    lines = [
        f"{'toolset':8} {'correct per run (of ' + str(cases) + ')':28} {'tool-output tokens/call':24} {'dollars':8}"
    ]
    for label, tally in results.items():
        mean = sum(tally.output_tokens) / len(tally.output_tokens) if tally.output_tokens else 0
        lines.append(
            f"{label:8} {', '.join(map(str, tally.correct_per_repeat)):28} "
            f"{mean:<24,.0f} {dollars(tally.usage, settings.price):.4f}"
        )
    return "\n".join(lines)


def main(settings: Settings, repeats: int, case_files: list[Path] | None = None) -> int:
    """Run the evaluation and print its table; exit 2 with one line when nothing could run."""
    if settings.offline:
        return _nothing_ran(
            "it needs a language model: set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server);"
            " the offline model always picks the same tools, so it would measure nothing"
        )
    if repeats < 1:
        return _nothing_ran(f"--repeats must be at least 1, got {repeats}")
    files = case_files or [p for p in (SHARED_CASES, OWN_CASES) if p.exists()]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        return _nothing_ran(f"no such cases file: {', '.join(missing)}")
    cases = load_cases(files)
    if not cases:
        return _nothing_ran(
            "no cases to run" + (f" in {', '.join(str(f) for f in files)}" if files else " (give --cases FILE)")
        )
    results = evaluate(settings, ResponsesModel(settings), cases, repeats)
    print(f"{len(cases)} cases from {', '.join(str(f) for f in files)}; model {settings.model}; {repeats} repeat(s)")
    print(report(settings, results, len(cases)))
    return 0


def _nothing_ran(why: str) -> int:
    print(f"atlas eval tools: nothing was run: {why}", file=sys.stderr)
    return 2
