"""A worker answers only runs taken under its own settings (`Settings.fingerprint`).

Why: a long-lived worker keeps the environment it started with. If the process that took a question
(`atlas ask` in a shell, or `atlas serve`) has another model, data folder or budget, the worker's answer
would silently come from the wrong settings. `atlas ask` routes its runs to a queue named after its
fingerprint, so only matching workers see them; this check is the guard for everything else (a Slack web
process and workers deployed with different settings, a worker started by hand on the wrong queue). The
run is not answered: it ends with a clear note to the asker and an error in the worker's log naming both
fingerprints, never the secrets behind them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from workers import wording as phrases
from workers.agent.events import Finished
from workers.agent.outcomes import finish
from workers.agent.ports import Reporter
from workers.runs.state import RunState

if TYPE_CHECKING:
    from workers.parts import WorkerParts

log = logging.getLogger("atlas.settings_check")


def mismatched(rt: WorkerParts, run: RunState) -> bool:
    """True when the run was taken under settings other than this worker's."""
    wanted = run.settings_fingerprint
    return wanted is not None and wanted != rt.settings.fingerprint


def refuse(rt: WorkerParts, run: RunState, reporter: Reporter) -> None:
    """End the run unanswered, say why in its thread or terminal, and log both fingerprints."""
    mine = rt.settings
    log.error(
        "run %s was taken under settings %s, but this worker has %s (model %s, data %s, queue %s); not answering it."
        " Start workers with the same settings as the process that takes questions.",
        run.id,
        run.settings_fingerprint,
        mine.fingerprint,
        mine.answering_model,
        mine.data_dir,
        mine.queue_name,
    )
    run.error = phrases.SETTINGS_MISMATCH
    finish(run, phrases.SETTINGS_MISMATCH, "settings_mismatch", partial=True)
    run.status = "failed"
    rt.store.save(run)
    reporter.event(run, Finished())
