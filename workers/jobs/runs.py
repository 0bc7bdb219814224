"""RQ job functions. They take a run id, load the run from Redis, and leave it persisted."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from types import TracebackType
from typing import cast

import redis
from rq import Retry, get_current_job
from rq.job import Job

from workers import settings_check
from workers import wording as phrases
from workers.agent.events import Finished, Paused
from workers.agent.outcomes import finish
from workers.agent.ports import Reporter
from workers.agent.reporting import FanOut, Fenced, StreamReporter
from workers.approvals import gate
from workers.errors import (
    DeliveryFailed,
    LeaseLost,
    ModelMalformed,
    ModelRejected,
    ModelUnavailable,
    SpendCapReached,
    StoppedByUser,
)
from workers.jobs.fenced import FencedParts
from workers.parts import WorkerParts
from workers.process import platforms, runtime
from workers.process.repo_parts import for_repo, run_repo
from workers.runs import lease
from workers.runs.state import RunState, StopReason

log = logging.getLogger("atlas.jobs")
# Re-queued by RQ, at the front, each time a stopping worker hands the run over; counted apart from the failure retries.
HAND_OVER = Retry(max=100, enqueue_at_front=True)


def reporter_for(rt: runtime.Runtime, run: RunState) -> Reporter:
    """The run's chat platform's thread when it came from one, else the run's event
    stream, which `atlas ask` tails. A chat run's progress shows in its thread, and nothing reads its
    stream: writing one cost 4 Redis commands per one-step run for no reader."""
    platform = rt.platform_for(run.origin.kind, run.origin.channel if run.origin.unprompted else None)
    if platform is None:
        return StreamReporter(rt.store)
    if run.origin.unprompted:  # asked in a help channel: quiet until sure, a hand-off when not (workers/help/)
        from workers.help.handoff import HelpReporter

        platform = HelpReporter(platform, rt.conn, rt.settings)
    return FanOut(platform, *rt.companions(run))


def continue_run(run_id: str) -> str | Retry:
    """Start or continue a run from its persisted state; returns its final or paused status. A worker asked
    to stop (`Runtime.stopping`) ends the run after its current step, saved, and returns RQ's `Retry`, so RQ
    queues this job again (at the front) for another worker, after the lease is released."""
    rt = runtime.current()
    if rt.stopping.is_set():
        return HAND_OVER  # taken just as the stop came: not started here
    ttl = rt.settings.worker_heartbeat_ttl  # a dead worker's run is free again when RQ finds it abandoned
    with lease.holding(rt.conn, run_id, ttl=ttl, wait=ttl + 5) as mine:
        if mine is None:
            log.info("run %s is being worked on by another job; leaving it to that job", run_id)
            return "busy"
        try:
            status = _continue(rt, run_id, mine.check)
        except LeaseLost:
            log.warning(
                "run %s: this job stalled past its %d s lease and another job took the run; stopping without"
                " saving or posting (that job answers it)",
                run_id,
                ttl,
            )
            return "lost"
    if status == "running" and rt.stopping.is_set():
        log.warning("run %s: saved after its step; handed over as this worker stops", run_id)
        return HAND_OVER
    return status


def _special(rt: runtime.Runtime, run: RunState, fence: Callable[[], None]) -> str | None:
    """A run that is no question: its own flow's status, else None."""
    if (
        run.triage is not None
    ):  # the triage inbox: no thread; its card and its actions only (a model only if configured, under its own budget)
        from workers.new_issues.triage_run import proceed

        # the issue's repository: its folder, tracker and backtest (issue 38)
        return proceed(cast(WorkerParts, FencedParts(for_repo(rt, run.triage.repo), fence)), run)
    if run.filing is not None:  # a thread drafted as an issue (one model call at most): its one approval
        from workers.followup import filing

        # the answer's repository: its tracker, labels and similar issues (issue 38)
        return filing.proceed(cast(WorkerParts, FencedParts(for_repo(rt, run.repo), fence)), run)
    if run.solved is not None:  # a solved thread drafted as knowledge: its one approval
        from workers.knowledge import solved

        return solved.proceed(cast(WorkerParts, FencedParts(rt, fence)), run)
    return None


def _continue(rt: runtime.Runtime, run_id: str, fence: Callable[[], None]) -> str:
    """`fence` (the lease's check) runs before every save and post, and raises LeaseLost once another job took the
    run."""
    run = rt.store.load(run_id)
    run.repo = run_repo(rt.settings, run)  # kept on the record (the console, `atlas runs show`): no extra command
    special = _special(rt, run, fence)
    if special is not None:
        return special
    reporter = Fenced(reporter_for(rt, run), fence)
    if run.final:
        # A re-delivery (the answer failed to post, or the worker died after saving it): surfaces
        # post what they have not posted yet and update what they have; they never post twice.
        reporter.event(run, Finished())
        return run.status
    if settings_check.mismatched(rt, run):
        fence()
        settings_check.refuse(rt, run, reporter)
        return run.status
    # the channel's model and budgets (atlas.toml); the loop settles cost and sources before its "answer" event
    agent = rt.agent(reporter, unprompted=run.origin.unprompted, fence=fence, run=run)
    platforms.before_steps(rt.conn, run)  # what the run's platform adds to its context
    try:
        # A paused run continues only once every pending call is decided (workers/approvals/gate.py); an early
        # or duplicate delivery returns here, and so does a run that ended because approvals expired.
        if run.status == "awaiting_approval" and not gate.resume(rt, run, reporter, agent):
            if run.status == "awaiting_approval":  # cards that failed to post earlier are posted now
                reporter.event(run, Paused(tuple(run.pending)))
            return run.status
        agent.run(run)
    except (DeliveryFailed, LeaseLost):
        raise  # DeliveryFailed: the run is saved, RQ's retry re-sends what did not reach the chat
    except StoppedByUser:
        log.info("run %s: stopped by the person who asked", run.id)
        finish(run, phrases.STOPPED_BY_USER, "stopped_by_user", partial=True)
        rt.settle(run)
        agent.keeper.save(run)
        reporter.event(run, Finished())  # the run's stream hears the end; the thread gets only the short note
    except (ModelUnavailable, redis.ConnectionError, redis.TimeoutError) as exc:
        job = get_current_job()
        if job is not None and job.retries_left:
            log.warning("run %s: %s; RQ will retry from the last saved step", run.id, exc)
            raise  # on_job_failure tells watchers a retry is coming
        if isinstance(exc, ModelMalformed):
            stop(rt, run, reporter, "model_malformed", phrases.MODEL_MALFORMED, fence)
        else:
            down = isinstance(exc, ModelUnavailable)
            stop(
                rt,
                run,
                reporter,
                "model_unavailable" if down else "internal_error",
                phrases.MODEL_DOWN if down else phrases.REDIS_DOWN,
                fence,
            )
    except SpendCapReached as exc:  # no stack trace, one message: what was reached and when it resets
        log.warning("run %s: %s; no model call until the next UTC midnight", run.id, exc)
        message = phrases.spend_cap(exc.which, exc.limit, exc.resets_at - time.time())
        finish(run, message, "spend_cap", partial=True)
        run.status, run.error = "failed", str(exc)  # failed: no feedback or file-issue buttons under it
        rt.settle(run)
        agent.keeper.save(run)
        reporter.event(run, Finished())
    except ModelRejected as exc:
        stop(rt, run, reporter, "model_rejected", phrases.MODEL_REFUSED.format(error=exc), fence)
    except Exception:
        log.exception("run %s failed", run.id)
        stop(rt, run, reporter, "internal_error", phrases.RUN_INTERNAL_ERROR, fence)
    return run.status


def stop(
    rt: runtime.Runtime,
    run: RunState,
    reporter: Reporter,
    reason: StopReason,
    message: str,
    fence: Callable[[], None] = lease.unfenced,
) -> None:
    """End the run with what it has and say why; the thread hears about it. `fence`: the job's lease check."""
    run.error = message
    partial_text = run.answer or ""
    finish(run, partial_text or message, reason, partial=True)
    run.status = "failed"
    rt.settle(run)
    fence()
    rt.store.save(run)
    reporter.event(run, Finished())


def on_job_failure(
    job: Job, connection: redis.Redis, exc_type: type[BaseException], exc_value: BaseException, tb: TracebackType | None
) -> None:
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
    if run.triage is not None:  # a triage run has no thread to tell: the record says it, its card keeps what it showed
        run.status, run.stop_reason, run.error = "failed", reason, phrases.WORKER_LOST
        rt.store.save(run)
        log.error("triage run %s (issue #%s) failed: %s", run.id, run.triage.issue, exc_type.__name__)
        return
    reporter = reporter_for(rt, run)
    stop(rt, run, reporter, reason, phrases.WORKER_LOST)
