"""A solved thread becomes knowledge (issue 39): one solved-thread run per answer, drafted, approved, kept once.

The web process claims the answer and queues the run (solved_claim.py) when a maintainer reacts ✅ to it, someone
presses "Mark as answer" under it, or a Discord forum post is tagged solved; only in public channels. `proceed`
(a worker) drafts the entry from the thread (the model when one is configured, entry_model.py, else or when it
fails the thread's words, entry_draft.py) and opens one approval, an `add_knowledge` call whose card shows the
exact entry; on Approve it is kept through the ledger (at most once per run) and audited, and the card says its id.
A denial or an expiry keeps nothing. Kept entries are searched by search_history (workers/knowledge/entries.py).
"""

from __future__ import annotations

import json
import logging
import time

from tools.solved_threads import SolvedThread
from workers.agent.cost import dollars
from workers.agent.events import Paused
from workers.approvals import audit, gate, ledger
from workers.approvals import records as approvals
from workers.followup import subscriptions as subs
from workers.knowledge import entries
from workers.knowledge import wording as words
from workers.knowledge.entry_draft import EntryDraft, draft
from workers.parts import WorkerParts
from workers.runs.solved_record import SolvedRecord
from workers.runs.state import PendingCall, RunState

log = logging.getLogger("atlas.knowledge")

CALL_ID = "add-knowledge"
TOOL = "add_knowledge"  # not a tool the model is offered: only this run proposes it, only an approver's click keeps it
STEP = 1


def proceed(rt: WorkerParts, run: RunState) -> str:
    """The solved-thread run's job, whatever brought it: the draft and its card, then the decision."""
    record = run.solved
    assert record is not None
    if run.status == "queued":
        _draft(rt, run, record)
    elif run.status == "awaiting_approval":
        _decided(rt, run, record)
    return run.status


def _draft(rt: WorkerParts, run: RunState, record: SolvedRecord) -> None:
    source = rt.store.load(record.source_run)
    platform = rt.platform_for(run.origin.kind)
    place = subs.place_of(run)
    link = None
    if platform is not None and place is not None:
        try:
            link = platform.permalink(place)
        except Exception:  # a link is a courtesy: the draft goes on without it
            log.warning("run %s: no permalink for the thread", run.id, exc_info=True)
        try:
            people = platform.people(source)
        except Exception:  # names are best effort: anonymous() still removes mentions and greetings
            log.warning("run %s: the thread's people not read", run.id, exc_info=True)
            people = []
        record.names = list(dict.fromkeys([*record.names, *people]))  # all the thread's people
    made = _chosen(rt, run, record, source, link)
    arguments = json.dumps(made.arguments(), ensure_ascii=False)
    run.items = [{"type": "function_call", "call_id": CALL_ID, "name": TOOL, "arguments": arguments}]
    run.pending = [
        PendingCall(pending_id=f"{run.id}.{CALL_ID}", call_id=CALL_ID, name=TOOL, arguments=arguments, step=STEP)
    ]
    record.status = "pending"
    run.status = "awaiting_approval"
    run.answer = words.SOLVED_DRAFTED.format(question=made.question)
    rt.store.save(run)
    gate.pause(rt, run)
    if platform is not None:
        platform.event(run, Paused(tuple(run.pending)))


def _chosen(rt: WorkerParts, run: RunState, record: SolvedRecord, source: RunState, link: str | None) -> EntryDraft:
    """The model's entry when one is configured and it answers in the format, else the thread's words."""
    record.drafted_by, record.model_failure = "thread", ""
    if not rt.settings.offline:
        from workers.knowledge import entry_model

        mine, runs = rt.settings.draft, rt.settings.budget
        attempt = entry_model.write(
            rt.model,
            source,
            link,
            record.names,
            max_tokens=min(mine.max_tokens, runs.max_tokens),
            max_seconds=min(mine.max_seconds, runs.max_seconds),
            project=rt.settings.project.name,
        )
        run.usage.add(attempt.usage)
        run.cost_usd = dollars(run.usage, rt.settings.price)
        if attempt.draft is not None:
            record.drafted_by = "model"
            return attempt.draft
        record.model_failure = attempt.failure
        log.warning(
            "run %s: the model's entry failed (%s); drafted from the thread's words instead", run.id, attempt.failure
        )
    return draft(source, link, record.names)


def _decided(rt: WorkerParts, run: RunState, record: SolvedRecord) -> None:
    call = run.pending[0]
    approval = approvals.load(rt.conn, call.pending_id)
    if approval is None:  # the worker stopped between saving the draft and opening its approval: open it now
        gate.pause(rt, run)
        approval = approvals.load(rt.conn, call.pending_id)
    platform = rt.platform_for(run.origin.kind)
    if approval is None or not approval.decided:
        if approval is not None and not approval.card_ts and platform is not None:  # a card that failed to post
            platform.event(run, Paused(tuple(run.pending)))
        return
    if approval.status != "approved":
        record.status = "declined" if approval.status == "denied" else "expired"
        _end(rt, run, words.SOLVED_NOT_KEPT.format(status=approval.status))
        return
    place = subs.place_of(run)
    ident = entries.entry_id(subs.thread_key(place) if place is not None else run.id)
    claim = ledger.claim(rt.conn, run.id, call.call_id)
    said = words.SOLVED_KEPT.format(id=ident)
    if not isinstance(
        claim, ledger.AlreadyDone
    ):  # claimed now, or claimed by a killed worker: keeping it is idempotent
        data = json.loads(call.arguments)
        entries.save(
            rt.conn,
            SolvedThread(
                ident,
                str(data["question"]),
                str(data["answer"]),
                tuple(data.get("links") or ()),
                str(data.get("permalink") or ""),
                time.time(),
            ),
        )
        ledger.record(rt.conn, run.id, call.call_id, said, True)
        audit.append(
            rt.conn,
            "result",
            run=run.id,
            pending_id=call.pending_id,
            tool=TOOL,
            arguments=call.arguments,
            requester=approval.requester,
            decider=approval.decider,
            decision="done",
            result=said,
        )
        log.info("run %s: solved thread kept as knowledge %s (approved by %s)", run.id, ident, approval.decider)
    record.entry, record.status = ident, "saved"
    if platform is not None:
        try:
            platform.card_decided(approval, result=said, ok=True)
        except Exception:
            log.exception("run %s: could not show the kept entry on its card", run.id)
    _end(rt, run, said)


def _end(rt: WorkerParts, run: RunState, said: str) -> None:
    run.pending, run.status, run.stop_reason, run.answer = [], "done", "done", said
    rt.store.save(run)
