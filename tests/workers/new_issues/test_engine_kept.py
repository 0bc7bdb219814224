"""A worker opens the triage history once (issue #24): every triage job of the process reads the engine its
runtime keeps, grown by the issues synced since, never a stale one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rq import Queue

from tests.support.triage_inbox_harness import inbox
from workers.jobs import runs as jobs
from workers.new_issues import claim
from workers.process import runtime
from workers.triage.engine import Triage

EXPORT_TITLE = "CSV export of the dashboard drops the last row"
EXPORT_BODY = "Exporting the jobs table to CSV from the dashboard loses its final row: 10 jobs shown, 9 in the file."


def test_triage_jobs_of_one_worker_open_the_history_once_and_see_the_issues_opened_since(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    opens: list[tuple[Any, ...]] = []
    real_open = Triage.open

    def counted(cls: type[Triage], *args: Any, **kwargs: Any) -> Triage:
        opens.append(args)
        return real_open(*args, **kwargs)

    monkeypatch.setattr(Triage, "open", classmethod(counted))
    with inbox(tmp_path, redis_url) as box:
        queue = Queue(box.settings.queue_name, connection=box.conn)
        rt = runtime.build(box.settings)
        runtime.install(rt)
        try:

            def opened(title: str, body: str) -> tuple[int, str]:
                """A new issue and its webhook applied (the index updated, the run claimed): its number and run."""
                issue = box.open_issue(title, body)
                [job for job in queue.get_jobs() if job.func_name.endswith("apply_event")][-1].perform()
                return issue["number"], claim.run_of(box.conn, "acme/rocket", issue["number"]) or ""

            first, first_run = opened(EXPORT_TITLE, EXPORT_BODY)
            assert jobs.continue_run(first_run) in ("awaiting_approval", "done")
            assert len(opens) == 1

            # synced after the first triage: a twin of the first, and an unrelated one triaged with nothing new since
            twin, twin_run = opened(EXPORT_TITLE + " (again)", EXPORT_BODY)
            other, other_run = opened(
                "Docs search box ignores accents", "Searching 'déjà' in the docs finds nothing; 'deja' does."
            )
            assert jobs.continue_run(twin_run) in ("awaiting_approval", "done")
            assert jobs.continue_run(other_run) in ("awaiting_approval", "done")

            assert len(opens) == 1, "a later triage job opened the history again"
            twin_record = box.run(twin_run).triage
            assert twin_record is not None
            assert [d["id"] for d in twin_record.suggestions["duplicates"]][:1] == [first]  # not stale: #first is seen
            engine = rt.triage_engine()
            assert engine.history.get(other) is not None  # grown by the issues synced since, once for both
            assert rt.triage_engines.opened == 1 and rt.triage_engines.grown == 1
            fresh = real_open(box.settings.data_dir, box.settings.home, box.settings.semantic_docs)
            assert [engine.triage(n).as_json() for n in (first, twin, other)] == [
                fresh.triage(n).as_json() for n in (first, twin, other)
            ]
        finally:
            runtime.install(None)  # type: ignore[arg-type]
