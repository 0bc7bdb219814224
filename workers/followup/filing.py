"""A click on "File as GitHub issue" under an answer: one filing run per answer, drafted, approved, filed once.

The web process claims the answer and queues the filing run (filing_claim.py: a second or redelivered
click starts nothing). `proceed` (a worker) drafts the issue from the answer's thread: by the model when one
is configured (model_draft.py, its own small budget), else, or when that fails, from the thread's own words
(draft.py); checks it like any `create_issue` call and opens its approval, whose card goes in the thread and says
which of the two drafted it (`FilingRecord.drafted_by`); once decided, the approved call runs through the gate's
ledger (at most once, settled from the tracker's marker when in doubt), the thread is subscribed to the
new issue and told so, once (filing_note.py: through a chat outage too).
"""

from __future__ import annotations

import json
import logging

from rq import Queue

from tools import open_corpus
from tools.context import ToolContext
from tools.dispatch import ToolOutput, validate
from tools.errors import for_people
from tools.issue_filing import FILED
from tools.mentions import defuse_arguments
from workers import wording
from workers.agent.cost import dollars
from workers.agent.events import Paused
from workers.agent.ports import Reporter
from workers.approvals import gate, ledger
from workers.approvals import records as approvals
from workers.followup import add_details, similar
from workers.followup import draft as drafting
from workers.followup import subscriptions as subs
from workers.followup.filing_note import tell
from workers.parts import WorkerParts
from workers.runs.filing_record import FilingRecord, FilingStatus
from workers.runs.state import PendingCall, RunState

log = logging.getLogger("atlas.followup")

CALL_ID = "file-issue"
STEP = 1


def proceed(rt: WorkerParts, run: RunState) -> str:
    """The filing run's job, whatever brought it: the draft and its card, then the decision."""
    record = run.filing
    assert record is not None
    if run.status == "queued":
        _draft(rt, run, record)
    elif run.status == "awaiting_approval":
        _decided(rt, run, record)
    elif run.status == "done" and record.result and not record.told:  # a worker died before the thread heard it
        tell(rt, run, record)
    return run.status


def _draft(rt: WorkerParts, run: RunState, record: FilingRecord) -> None:
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
        known = rt.tracker.known_labels()
    except Exception:
        log.warning("run %s: could not list the tracker's labels; drafting without labels", run.id, exc_info=True)
        known = []
    ctx = ToolContext(
        corpus=open_corpus(rt.settings.data_dir, rt.settings.home, rt.settings.semantic_docs),
        run_id=run.id,
        tracker=rt.tracker,
    )
    made, refused = _chosen(rt, run, record, source, link, known, ctx)
    record.redacted, record.left_out = made.redacted, list(made.left_out)  # the card says both
    if refused is not None:  # the tracker refused the draft (a label gone): say so, file nothing
        _end(rt, run, record, "failed", wording.FILE_ISSUE_REFUSED.format(reason=refused.text.split("\n")[0]))
        return
    named = {"repo": record.repo} if record.repo else {}  # several repositories: the card names where (issue 38)
    arguments = defuse_arguments(
        "create_issue", json.dumps({**made.arguments(), **named})
    )  # the card shows it as filed: no live @mention
    record.similar = similar.open_matches(rt, made.title, made.body)  # shown on the card: it may be known already
    run.items = [{"type": "function_call", "call_id": CALL_ID, "name": "create_issue", "arguments": arguments}]
    run.pending = [
        PendingCall(
            pending_id=f"{run.id}.{CALL_ID}", call_id=CALL_ID, name="create_issue", arguments=arguments, step=STEP
        )
    ]
    instead = add_details.offer(
        run, record.similar, made.body, record.repo
    )  # "Add my details to #N instead", decided alone
    run.pending += [instead] if instead is not None else []
    record.status = "pending"
    run.status = "awaiting_approval"
    run.answer = f"Drafted: {made.title}"
    rt.store.save(run)
    _open(rt, run)
    if platform is not None:
        platform.event(run, Paused(tuple(run.pending)))


def _chosen(
    rt: WorkerParts,
    run: RunState,
    record: FilingRecord,
    source: RunState,
    link: str | None,
    known: list[str],
    ctx: ToolContext,
) -> tuple[drafting.Draft, ToolOutput | None]:
    """The model's draft when one is configured and it passes create_issue's checks, else the thread's words (the
    fallback logged once, its reason kept in the record); and the checks' refusal of the draft chosen, if any."""
    record.drafted_by, record.model_failure = "thread", ""
    if not rt.settings.offline:
        written, record.model_failure = _by_model(rt, run, source, link, known)
        checked = (
            validate(rt.registry, "create_issue", json.dumps(written.arguments()), ctx) if written is not None else None
        )
        if written is not None and not isinstance(checked, ToolOutput):
            record.drafted_by = "model"
            return written, None
        if isinstance(checked, ToolOutput):
            record.model_failure = "the tracker refused it: " + checked.text.split("\n")[0]
        log.warning(
            "run %s: the model's draft failed (%s); drafted from the thread's words instead",
            run.id,
            record.model_failure,
        )
    made = drafting.draft(source, link, known, run.origin.kind)
    checked = validate(rt.registry, "create_issue", json.dumps(made.arguments()), ctx)
    return made, checked if isinstance(checked, ToolOutput) else None


def _by_model(
    rt: WorkerParts, run: RunState, source: RunState, link: str | None, known: list[str]
) -> tuple[drafting.Draft | None, str]:
    """The model's draft under the draft's budget (each part capped at a run's), its usage billed to the filing run;
    or None and why not."""
    from workers.followup import model_draft

    mine, runs = rt.settings.draft, rt.settings.budget
    attempt = model_draft.write(
        rt.model,
        source,
        link,
        known,
        run.origin.kind,
        max_tokens=min(mine.max_tokens, runs.max_tokens),
        max_seconds=min(mine.max_seconds, runs.max_seconds),
        project=rt.settings.project.name,
    )
    run.usage.add(attempt.usage)
    run.cost_usd = dollars(run.usage, rt.settings.price)
    return attempt.draft, attempt.failure


def _open(rt: WorkerParts, run: RunState) -> None:
    """Each pending call's approval in its own step (filing, or adding details instead: either is decided alone)."""
    queue = Queue(rt.settings.queue_name, connection=rt.conn)
    for call in run.pending:
        approvals.open_step(rt.conn, run, [call], rt.settings.approval_ttl_seconds)
        opened = approvals.for_step(rt.conn, run.id, call.step)
        if opened:
            approvals.schedule_expiry(queue, run.id, call.step, opened[0].expires_at)


def _decided(rt: WorkerParts, run: RunState, record: FilingRecord) -> None:
    found = {c.call_id: approvals.load(rt.conn, c.pending_id) for c in run.pending}
    if any(a is None for a in found.values()):  # the worker stopped between saving the draft and opening its approvals
        _open(rt, run)
        found = {c.call_id: approvals.load(rt.conn, c.pending_id) for c in run.pending}
    chosen = next((c for c in run.pending if (a := found.get(c.call_id)) is not None and a.status == "approved"), None)
    if chosen is None and any(a is None or not a.decided for a in found.values()):
        platform = rt.platform_for(run.origin.kind)  # a card that failed to post earlier is posted now
        if any(a is not None and not a.card_ts for a in found.values()) and platform is not None:
            missing = tuple(p for p in run.pending if not _carded(found.get(p.call_id)))
            platform.event(run, Paused(missing))
        return
    if chosen is None:
        approval = found[CALL_ID]
        assert approval is not None
        record.status = "declined" if any(a is not None and a.status == "denied" for a in found.values()) else "expired"
        run.pending, run.status, run.stop_reason = [], "done", "done"
        run.answer = (
            f"Not filed: {approval.status} by {approval.decider_label}"
            if approval.status == "denied"
            else "Not filed: expired"
        )
        rt.store.save(run)
        return
    for other in run.pending:  # the other way is not taken
        if other is not chosen:
            approvals.expire_step(rt.conn, run.id, other.step)
    approval = found[chosen.call_id]
    assert approval is not None
    platform = rt.platform_for(run.origin.kind)
    reporter = platform if platform is not None else Reporter()
    ctx = ToolContext(
        corpus=open_corpus(rt.settings.data_dir, rt.settings.home, rt.settings.semantic_docs),
        run_id=run.id,
        tracker=rt.tracker,
    )
    call = chosen
    output = gate.run_approved(rt, run, call, approval, reporter, ctx)
    run.items.append({"type": "function_call_output", "call_id": call.call_id, "output": output})
    place = subs.place_of(run)
    if call.call_id == add_details.CALL_ID and not output.startswith("Error") and place is not None:
        record.number = add_details.issue_of(call)
        subs.subscribe(rt.conn, subs.tracker_name(rt.settings), record.number, place, record.source_run, "linked")
        _end(rt, run, record, "added", wording.FILE_ISSUE_ADDED.format(number=record.number, result=output))
        return
    filed = FILED.match(output)
    if filed and place is not None:
        record.number = int(filed.group(1))
        subs.subscribe(rt.conn, subs.tracker_name(rt.settings), record.number, place, record.source_run, "filed")
        _end(rt, run, record, "filed", wording.FILE_ISSUE_DONE.format(result=output))
        return
    in_doubt = (ledger.entry_of(rt.conn, run.id, call.call_id) or {}).get("state") == "in_doubt"
    record.told = record.told or in_doubt  # the gate said it in the thread already
    _end(rt, run, record, "in_doubt" if in_doubt else "failed", for_people(output))


def _carded(approval: approvals.Approval | None) -> bool:
    return approval is not None and bool(approval.card_ts)


def _end(rt: WorkerParts, run: RunState, record: FilingRecord, status: FilingStatus, said: str) -> None:
    """The filing run's last state, and the one line the thread hears about it (once)."""
    record.status = status
    record.result = said
    run.pending, run.status, run.stop_reason, run.answer = [], "done", "done", said
    rt.store.save(run)
    tell(rt, run, record)
