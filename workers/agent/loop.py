"""The agent loop: one model call and its tool calls per step, decisions returned as values."""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from typing import Any, Literal, assert_never

from atlas import stop_signals
from tools import hand_off, results
from tools.dispatch import ToolOutput, dispatch, validate
from tools.errors import ToolError
from tools.mentions import defuse_arguments
from workers.agent import context as ctxmgmt
from workers.agent import toolset
from workers.agent.budget import WRAP_UP_SECONDS, exhausted, seconds_left
from workers.agent.events import Finished, Paused, StepStarted, ToolCalled, ToolState
from workers.agent.instructions import INCOMPLETE, INSTRUCTIONS, TOOL_TIMED_OUT, TOOL_TIMED_OUT_HINT, WRAP_UP
from workers.agent.model import Model, ModelReply, ModelRequest
from workers.agent.outcomes import (
    Answered,
    BudgetStop,
    HandedOff,
    NeedsApproval,
    RunAgain,
    StepOutcome,
    finish,
    initial_items,
)
from workers.agent.ports import Limits, Reporter, RunKeeper, Summarizer, Tools
from workers.errors import BudgetSpent, ContextFull, ModelRejected, PairingBroken
from workers.runs.state import PendingCall, RunState, StepRecord, StopReason
from workers.wording import OUT_OF_BUDGET

log = logging.getLogger("atlas.loop")

# when no worker sized one (workers/process/runtime.py); its threads leave SIGTERM to the main thread
SHARED_TOOL_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="atlas-tool", initializer=stop_signals.hold)


@dataclass
class Agent:
    """Everything a step needs, as named collaborators (workers/agent/ports.py): built once per job
    from the parts the worker process built once."""

    model: Model  # answers a request (the Responses API, or the offline model)
    tools: Tools  # the registry, and what one run's calls may use
    keeper: RunKeeper  # saves the run; settles it before the final save; opens approvals on a pause
    reporter: Reporter  # where progress, cards and the answer go
    summarizer: Summarizer  # compaction's summary of what leaves the context window
    limits: Limits = Limits()
    instructions: str = INSTRUCTIONS
    stopping: threading.Event = field(default_factory=threading.Event)  # set: end after this step, saved, to hand over
    pool: Executor = SHARED_TOOL_POOL  # where read calls run, each under the step's tool timeout

    def run(self, run: RunState) -> RunState:
        """Take steps until the run answers, pauses for approval or stops on a budget; or, once `stopping`
        is set, until the step in hand is saved (the run stays "running", for another worker to continue)."""
        if not run.items:
            run.items = initial_items(run)
        run.status = "running"
        first = True  # "running" goes on record at the first step's start (workers: `step`)
        while True:
            outcome = self.step(run, announce=first)
            first = False
            match outcome:
                case RunAgain():
                    if self.stopping.is_set():
                        return run  # saved by the step (`_close_step`)
                    continue
                case NeedsApproval(pending=pending):
                    run.status = "awaiting_approval"
                    run.pending = pending
                    self.keeper.save(run)
                    self.keeper.pause(run)
                    self.reporter.event(run, Paused(tuple(pending)))
                    return run
                case BudgetStop(reason=reason):
                    self.wrap_up(run, reason)
                case Answered(text=text):
                    finish(run, text, "done", partial=False)
                case HandedOff(looked_at=looked_at):
                    finish(run, looked_at, "done", partial=False)
                    run.handoff = looked_at
                case _:
                    assert_never(outcome)
            self.keeper.settle(run)
            self.keeper.save(run)
            self.reporter.event(run, Finished())
            return run

    def step(self, run: RunState, *, announce: bool = False) -> StepOutcome:
        """One model call and its tool calls. `announce`: the job's first step, whose start puts the
        run's "running" status on record before the model call, unless the step event already did
        (the Slack progress message saves the run when it starts): one save fewer per run."""
        reason = exhausted(self.limits.budget, run)
        if reason:
            return BudgetStop(reason)
        started = time.monotonic()
        index = len(run.steps) + 1
        saved_at = run.updated_at
        self.reporter.event(run, StepStarted(index))
        if announce and run.updated_at == saved_at:
            self.keeper.save(run)
        try:
            reply = self.call_model(run, tool_choice="auto", seconds=seconds_left(self.limits.budget, run, started))
        except ContextFull:
            return BudgetStop("context_full")
        except BudgetSpent as spent:  # the call was cut off at the run's last working second
            log.warning("run %s: %s", run.id, spent)
            self._close_step(run, StepRecord(index=index, errors=1), started, BudgetStop("max_seconds"))
            return BudgetStop("max_seconds")
        record = StepRecord(index=index, input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens)
        outcome: StepOutcome
        if reply.status != "completed":
            # A cut-off reply can hold reasoning with nothing after it, or calls with half their
            # arguments: the API refuses either if sent back. Drop it and say why instead.
            run.items.append(
                {
                    "type": "message",
                    "role": "developer",
                    "content": INCOMPLETE.format(reason=reply.incomplete_reason or reply.status),
                }
            )
            record.errors = 1
            outcome = RunAgain()
            run.consecutive_errors += 1
            return self._close_step(run, record, started, outcome)
        run.items.extend(reply.output)
        if not reply.calls:
            outcome = Answered(reply.text)
        else:
            pending = self.run_calls(run, reply.calls, record, started)
            outcome = NeedsApproval(pending) if pending else self._handed_off(reply.calls) or RunAgain()
        run.consecutive_errors = run.consecutive_errors + 1 if record.errors else 0
        return self._close_step(run, record, started, outcome)

    def _handed_off(self, calls: list[dict[str, Any]]) -> HandedOff | None:
        """The run ends on a `hand_off` call, where the run was offered one (its output is already paired)."""
        if self.tools.registry.get(hand_off.NAME) is None:
            return None
        for call in calls:
            if call["name"] == hand_off.NAME:
                return HandedOff(hand_off.summary(call.get("arguments", "")))
        return None

    def _close_step(self, run: RunState, record: StepRecord, started: float, outcome: StepOutcome) -> StepOutcome:
        """Record the step's time and persist the run: every step ends saved, a step that runs again
        here; an answer or a pause by `run`, right after, with the fields that end it (one save fewer)."""
        record.ms = int((time.monotonic() - started) * 1000)
        run.seconds_spent += time.monotonic() - started
        run.steps.append(record)
        if isinstance(outcome, RunAgain):
            self.keeper.save(run)
        return outcome

    def call_model(
        self,
        run: RunState,
        tool_choice: Literal["auto", "none"],
        seconds: float | None = None,
        *,
        at_least: float = 0.0,
    ) -> ModelReply:
        """One model call on the fitted transcript; `seconds` left to work (compaction's too), `at_least` a floor."""
        deadline = None if seconds is None else time.monotonic() + seconds
        tools = toolset.offered(self.tools.registry.definitions(), run.items)  # what this question needs (issue 40)
        fitted = ctxmgmt.fit_call(
            run.items,
            budget=self.limits.context,
            instructions=self.instructions,
            tools=tools,
            summarize=self._summarize_for(run, deadline),
        )
        if fitted.problems:  # a bug in our transforms: the API would refuse the request anyway
            raise PairingBroken("; ".join(fitted.problems))
        if fitted.tokens_after > self.limits.context.input_limit:
            raise ContextFull(f"{fitted.tokens_after} input tokens after clearing and compaction")
        run.items = fitted.items
        request = ModelRequest(
            instructions=self.instructions,
            input=run.items,
            tools=tools,
            tool_choice=tool_choice,
            max_output_tokens=self.limits.context.output_reserve,
            seconds_left=None if deadline is None else max(deadline - time.monotonic(), at_least),
        )
        reply = self.model.respond(request)
        run.usage.add(reply.usage)
        return reply

    def _summarize_for(self, run: RunState, deadline: float | None) -> Callable[[list[dict[str, Any]]], str]:
        """Compaction's summarize, billing its call to the run (toward max_tokens), cut off at `deadline`."""

        def summarize(items: list[dict[str, Any]]) -> str:
            text, usage = self.summarizer.summarize(
                items, seconds_left=None if deadline is None else deadline - time.monotonic()
            )
            run.usage.add(usage)
            return text

        return summarize

    def run_calls(
        self, run: RunState, calls: list[dict[str, Any]], record: StepRecord, started: float | None = None
    ) -> list[PendingCall]:
        """Execute read calls concurrently, together within the tool timeout and the run's remaining working
        seconds (from the step's `started`); side-effect calls that validate become pending."""
        # One stash for the loop's cuts, the tools' own cuts and read_more's pages; its pages are
        # sized so that a page and its note fit the result limit and are never cut again.
        stash = self.tools.stash(run, results.page_tokens(self.limits.context.result_token_limit))
        ctx = replace(self.tools.context(run), stash=stash)
        outputs: dict[str, tuple[str, bool]] = {}
        pending: list[PendingCall] = []
        futures = {}
        for call in calls:
            name, call_id, arguments = call["name"], call["call_id"], call.get("arguments", "")
            record.tools.append(name)
            tool = self.tools.registry.get(name)
            if tool is not None and tool.side_effect:
                checked = validate(self.tools.registry, name, arguments, ctx)  # ctx: the tracker checks
                if isinstance(checked, ToolOutput):
                    outputs[call_id] = (checked.text, False)
                else:
                    pending.append(
                        PendingCall(
                            pending_id=f"{run.id}.{call_id}",
                            call_id=call_id,
                            name=name,
                            arguments=defuse_arguments(name, arguments),
                            step=len(run.steps) + 1,
                        )  # its card shows the text as posted: no live @mention
                    )
                continue
            self.reporter.event(run, ToolCalled(call_id, name, arguments, "started"))
            # the call's thread logs under this run (workers/runs/run_log.py)
            futures[call_id] = self.pool.submit(
                contextvars.copy_context().run, dispatch, self.tools.registry, name, arguments, ctx
            )
        allowed = self.limits.tool_timeout
        if started is not None:
            allowed = max(0.0, min(allowed, seconds_left(self.limits.budget, run, started)))
        deadline = time.monotonic() + allowed
        for call_id, future in futures.items():
            try:
                result = future.result(timeout=max(deadline - time.monotonic(), 0.01))
                outputs[call_id] = (result.text, result.ok)
            except FutureTimeout:
                future.cancel()  # not started yet (the pool is busy): it never runs
                timed_out = ToolError(TOOL_TIMED_OUT.format(seconds=allowed), TOOL_TIMED_OUT_HINT)
                outputs[call_id] = (timed_out.render(), False)
        for call in calls:
            call_id = call["call_id"]
            if call_id not in outputs:
                continue  # pending: its output is appended when decided
            text, ok = outputs[call_id]
            text = results.cut(text, self.limits.context.result_token_limit, stash)
            if not ok:
                record.errors += 1
            run.items.append({"type": "function_call_output", "call_id": call_id, "output": text})
            if call_id in futures:
                state: ToolState = "done" if ok else "failed"
                self.reporter.event(run, ToolCalled(call_id, call["name"], call.get("arguments", ""), state))
        return pending

    def wrap_up(self, run: RunState, reason: StopReason) -> None:
        """One last call with tools off: what was found and what is missing; the answer is partial."""
        run.items.append(
            {"type": "message", "role": "user", "content": WRAP_UP.format(reason=reason.replace("_", " "))}
        )
        started = time.monotonic()
        # what is left of the budget, never under WRAP_UP_SECONDS: a run stopped on its seconds still says what it found
        try:
            reply = self.call_model(
                run,
                tool_choice="none",
                seconds=seconds_left(self.limits.budget, run, started),
                at_least=WRAP_UP_SECONDS,
            )
            run.items.extend(reply.output)
            text = reply.text
            record = StepRecord(
                index=len(run.steps) + 1,
                input_tokens=reply.usage.input_tokens,
                output_tokens=reply.usage.output_tokens,
                wrap_up=True,
            )
        except (ModelRejected, ContextFull, BudgetSpent):
            run.items.pop()  # the wrap-up note was never sent
            text, record = "", StepRecord(index=len(run.steps) + 1, errors=1, wrap_up=True)
        record.ms = int((time.monotonic() - started) * 1000)
        run.seconds_spent += time.monotonic() - started
        run.steps.append(record)
        finish(run, text or OUT_OF_BUDGET, reason, partial=True)
