"""The triage channel's digest of new issues held back by the repository's rate (rates.py): never silence.

When a new issue is over ATLAS_TRIAGE_RATE it gets no card of its own; the channel hears instead, at most
once every ten minutes per repository, how many new issues wait that no digest named yet, which, and how a
maintainer triages one (`atlas triage N --post`). Each digest schedules the next (RQ's scheduler, as approval
expiry needs), which names the issues held back since and stops when there are none: the end of a flood is
told too. A digest the platform refused is posted by the next held-back issue or by RQ's retry of the job.
"""

from __future__ import annotations

import logging
import re
from datetime import timedelta

from rq import Queue

from workers.new_issues import rates, wording
from workers.parts import WorkerParts
from workers.runs.job_names import POST_DIGEST
from workers.runs.state import Origin

log = logging.getLogger("atlas.new_issues")
LISTED = 20  # issue numbers named in one digest; the count says the rest


def tell(rt: WorkerParts, scope: str) -> str:
    """Post the scope's digest in the triage channel if one is due; a note for the job's result."""
    triage = rt.settings.triage
    platform = rt.platform_for(triage.platform or "slack")
    if platform is None or not triage.channel or not rates.digest_due(rt.conn, scope):
        return ""
    members = rates.held_back(rt.conn, scope)
    if not members:  # nothing new: the next held-back issue may post at once
        rates.digest_failed(rt.conn, scope)
        return ""
    numbers = [member.rpartition("#")[2] for member in members]
    shown = ", ".join(f"#{n}" for n in numbers[:LISTED]) + (", ..." if len(numbers) > LISTED else "")
    text = wording.DIGEST.format(count=len(numbers), numbers=shown, first=numbers[0])
    Queue(
        rt.settings.queue_name, connection=rt.conn
    ).enqueue_in(  # the next one first: a failed post below retries both
        timedelta(seconds=rates.DIGEST_SECONDS + 1),
        POST_DIGEST,
        scope,
        job_id=f"atlas-digest-{re.sub(r'[^A-Za-z0-9_-]', '-', scope)}-{numbers[-1]}",
    )
    try:
        channel = rt.settings.org.triage_channel(scope.removeprefix("repo:"), triage.channel)  # the repository's
        platform.thread_note(Origin(kind=triage.platform or "slack", channel=channel), text)
    except Exception:
        rates.digest_failed(rt.conn, scope)
        raise
    rates.digested(rt.conn, scope, members[-1])
    log.info("triage digest posted for %s: %d issue(s) held back", scope, len(numbers))
    return f"; digest posted ({len(numbers)} held back)"
