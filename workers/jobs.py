"""RQ job functions. They take a run id, load the run from Redis, and leave it persisted."""

from __future__ import annotations

import logging
import re

from rq import get_current_job

from workers import runtime
from workers.cost import dollars
from workers.errors import ModelRejected, ModelUnavailable
from workers.loop import Reporter, finish
from workers.reporting import FanOut, StreamReporter
from workers.state import RunState, StopReason

log = logging.getLogger("atlas.jobs")


def reporter_for(rt: runtime.Runtime, run: RunState) -> Reporter:
    """The run's stream, plus its Slack thread when it came from Slack."""
    if run.origin.kind == "slack":
        from workers.slack_surface import SlackReporter

        return FanOut(StreamReporter(rt.store), SlackReporter.for_settings(rt.settings, rt.store))
    return StreamReporter(rt.store)


def continue_run(run_id: str) -> str:
    """Start or continue a run from its persisted state; returns its final or paused status."""
    rt = runtime.current()
    run = rt.store.load(run_id)
    if run.final or run.status == "awaiting_approval":
        return run.status  # a duplicate or late delivery: nothing to do
    reporter = reporter_for(rt, run)
    agent = rt.agent(reporter)
    try:
        agent.run(run)
    except ModelUnavailable as exc:
        job = get_current_job()
        if job is not None and job.retries_left:
            log.warning("run %s: %s; RQ will retry from the last saved step", run.id, exc)
            rt.store.publish(run.id, {"kind": "retrying", "status": run.status, "reason": str(exc)})
            raise
        stop(rt, run, reporter, "model_unavailable", "The model API could not be reached, even after retries.")
    except ModelRejected as exc:
        stop(rt, run, reporter, "model_rejected", f"The model API refused the request: {exc}")
    except Exception:
        log.exception("run %s failed", run.id)
        stop(rt, run, reporter, "internal_error", "Atlas hit an internal error while working on this.")
    settle(rt, run)
    return run.status


def settle(rt: runtime.Runtime, run: RunState) -> None:
    """Cost and sources, computed once the run is final."""
    run.cost_usd = dollars(run.usage, rt.settings.price)
    if run.final and run.answer:
        run.sources = sources_of(run)
    rt.store.save(run)


def stop(rt: runtime.Runtime, run: RunState, reporter: Reporter, reason: StopReason, message: str) -> None:
    """End the run with what it has and say why; the thread hears about it."""
    run.error = message
    partial_text = run.answer or ""
    finish(run, partial_text or message, reason, partial=True)
    run.status = "failed"
    rt.store.save(run)
    reporter.event(run, "answer")


def on_job_failure(job, connection, exc_type, exc_value, tb) -> None:  # noqa: ANN001 - RQ's callback signature
    """RQ calls this when a job fails or is found abandoned; a run is never dropped silently."""
    rt = runtime.current()
    run_id = job.args[0] if job.args else None
    if not run_id:
        return
    try:
        run = rt.store.load(run_id)
    except Exception:
        return
    if run.final:
        return
    if job.retries_left:
        rt.store.publish(run.id, {"kind": "retrying", "status": run.status, "reason": exc_type.__name__})
        return
    reason: StopReason = "worker_lost" if exc_type.__name__ == "AbandonedJobError" else "internal_error"
    stop(rt, run, reporter_for(rt, run), reason, "The worker running this question stopped before it finished.")
    settle(rt, run)


_ISSUE_REF = re.compile(r"#(\d{1,7})\b")


def sources_of(run: RunState) -> list[str]:
    """Doc ids and issue numbers that the answer cites and that a tool actually returned."""
    seen = "\n".join(str(item.get("output", "")) for item in run.items if item.get("type") == "function_call_output")
    answer = run.answer or ""
    found: list[str] = []
    for number in dict.fromkeys(_ISSUE_REF.findall(answer)):
        if re.search(rf"#{number}\b", seen):
            found.append(f"#{number}")
    corpus_ids = runtime.current().doc_ids()
    for doc_id in corpus_ids:
        if re.search(rf"(?<![\w-]){re.escape(doc_id)}(?![\w-])", answer) and doc_id in seen:
            found.append(doc_id)
    return found
