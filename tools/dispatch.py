"""Turn a model's function call (name + JSON arguments) into the text it reads back. Never raises.

`validate` only parses and checks the arguments (approval cards need that before anything runs);
`execute` runs a validated call; `dispatch` does both. Every failure becomes an error the model can
act on; an exception escaping a tool is a bug, logged with the run id and reported generically.
A read tool runs inside the corpus's snapshot (tools/corpus.py): all its reads of the knowledge index see
one commit, even when an update lands in the middle of the call.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from atlas.text import clip
from datasets.tracker_db import DatasetError
from tools.context import ToolContext
from tools.errors import BAD_DATA, BAD_DATA_HINT, FIX_FIELD, UNEXPECTED, UNEXPECTED_HINT, ToolError
from tools.registry import Registry

log = logging.getLogger("atlas.tools")
MAX_ERRORS_SHOWN = 3


@dataclass(frozen=True)
class ToolOutput:
    """What goes back to the model as the function_call_output, and whether the call succeeded."""

    text: str
    ok: bool
    in_doubt: bool = False  # a write that may or may not have happened (tools.errors.TrackerInDoubt)


def validate(registry: Registry, name: str, arguments: str, ctx: ToolContext | None = None) -> BaseModel | ToolOutput:
    """Parse and validate a call's arguments; a ToolOutput (ok=False) says what is wrong.

    A tool with a data-dependent `check` (side-effect tools) needs `ctx` to be validated at all.
    """
    try:
        tool = registry.get(name) if isinstance(name, str) else None
        if tool is None:
            available = ", ".join(registry.names()) or "(none)"
            return _error(ToolError(f"Unknown tool '{clip(str(name), 80, '...')}'.", f"Available tools: {available}."))
        try:
            raw = json.loads(arguments) if isinstance(arguments, str) and arguments.strip() else {}
        except (ValueError, RecursionError) as exc:
            return _error(
                ToolError(
                    f"Arguments for {name} are not valid JSON ({clip(str(exc), 80, '...')}).",
                    _fields_hint(tool.args_model),
                )
            )
        if not isinstance(raw, dict):
            return _error(
                ToolError(
                    f"Arguments for {name} must be a JSON object, got {type(raw).__name__}.",
                    _fields_hint(tool.args_model),
                )
            )
        try:
            # Strict, in JSON mode: `true` is not issue #1 and "5" is not 5, as the strict schema says.
            args = tool.args_model.model_validate_json(json.dumps(raw), strict=True)
        except ValidationError as exc:
            return _error(ToolError(f"Invalid arguments for {name}: {_describe(exc, tool.args_model)}", FIX_FIELD))
        if tool.check is not None:
            if ctx is None:
                log.error("tool %s has a check but was validated without a context", name)
                return _error(ToolError(UNEXPECTED, UNEXPECTED_HINT))
            problem = tool.check(args, ctx)
            if problem is not None:
                return _error(problem)
        return args
    except Exception:  # a bug in a model validator or a registry: never let it reach the loop
        log.exception("tool %r: validation crashed", clip(str(name), 80, "..."))
        return _error(ToolError(UNEXPECTED, UNEXPECTED_HINT))


def execute(registry: Registry, name: str, args: BaseModel, ctx: ToolContext) -> ToolOutput:
    """Run a validated call. Tool errors come back as values, exceptions as a generic error."""
    tool = registry.get(name)
    if tool is None:
        available = ", ".join(registry.names()) or "(none)"
        return _error(ToolError(f"Unknown tool '{clip(str(name), 80, '...')}'.", f"Available tools: {available}."))
    try:
        if tool.side_effect:  # it writes: never under a read snapshot of what it may write
            result = tool.fn(args, ctx)
        else:
            with ctx.corpus.snapshot():  # a call reads one state of the indexes, never half of an update
                result = tool.fn(args, ctx)
    except DatasetError as exc:  # a page read on first use (the docs index is lazy) that is not valid data
        log.error("tool %s: bad data (run %s): %s", name, getattr(ctx, "run_id", None), exc)
        return _error(ToolError(BAD_DATA.format(problem=_file_named(str(exc))), BAD_DATA_HINT))
    except Exception:
        log.exception("tool %s crashed (run %s)", name, getattr(ctx, "run_id", None))
        return _error(ToolError(UNEXPECTED, UNEXPECTED_HINT))
    if isinstance(result, ToolError):
        return _error(result)
    if isinstance(result, str):
        return ToolOutput(text=result, ok=True)
    log.error("tool %s returned %s, not str or ToolError (run %s)", name, type(result).__name__, ctx.run_id)
    return _error(ToolError(UNEXPECTED, UNEXPECTED_HINT))


def dispatch(registry: Registry, name: str, arguments: str, ctx: ToolContext) -> ToolOutput:
    """Validate then execute one read call; always returns a ToolOutput.

    Side-effect tools are refused here: they run only through the approval gate (workers.approvals.records
    decides, workers.approvals.ledger executes once), never by a direct dispatch.
    """
    tool = registry.get(name) if isinstance(name, str) else None
    if tool is not None and tool.side_effect:
        return _error(
            ToolError(
                f"{name} changes the tracker and needs a maintainer's approval.",
                "Propose it in a run; it runs only after someone approves it in the chat.",
            )
        )
    checked = validate(registry, name, arguments, ctx)
    if isinstance(checked, ToolOutput):
        return checked
    return execute(registry, name, checked, ctx)


def _error(err: ToolError) -> ToolOutput:
    return ToolOutput(text=err.render(), ok=False, in_doubt=err.in_doubt)


def _fields_hint(model: type[BaseModel]) -> str:
    fields = ", ".join(model.model_fields)
    return f"Send a JSON object with the fields: {fields}." if fields else "Send an empty JSON object {}."


def _describe(exc: ValidationError, model: type[BaseModel]) -> str:
    """One short clause per problem, naming the field: 'limit must be <= 20'."""
    problems = [_problem(err, model) for err in exc.errors(include_url=False)]
    shown = "; ".join(problems[:MAX_ERRORS_SHOWN])
    more = len(problems) - MAX_ERRORS_SHOWN
    return shown + (f"; and {more} more." if more > 0 else ".")


def _problem(err: Any, model: type[BaseModel]) -> str:
    field = ".".join(str(part) for part in err.get("loc", ())) or "arguments"
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    if kind == "missing":
        return f"{field} is required"
    if kind == "extra_forbidden":
        return f"{field} is not a field (fields: {', '.join(model.model_fields)})"
    bounds = {
        "less_than_equal": ("<=", "le"),
        "less_than": ("<", "lt"),
        "greater_than_equal": (">=", "ge"),
        "greater_than": (">", "gt"),
    }
    if kind in bounds:
        op, key = bounds[kind]
        return f"{field} must be {op} {ctx.get(key)}"
    if kind == "literal_error":
        return f"{field} must be one of {ctx.get('expected')}"
    return f"{field}: {clip(str(err.get('msg', 'invalid value')), 120, '...')}"


def _file_named(problem: str) -> str:
    """`/srv/data/docs/x.md: not UTF-8 text` as `x.md: not UTF-8 text`: the model and the chat see the file, never the
    server's folders."""
    where, sep, what = problem.partition(": ")
    return os.path.basename(where) + sep + what if sep and "/" in where else problem
