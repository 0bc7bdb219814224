"""The RQ job names (workers/runs/job_names.py): each imports to its job, and a job queued under a name of an
earlier release still runs after the upgrade."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
from rq import Callback, Queue
from rq.job import Job
from rq.utils import import_attribute

from atlas.settings import Settings
from tests.support.tools_dataset import make_dataset
from workers.jobs import runs
from workers.process import runtime
from workers.process.rq_job import AtlasJob
from workers.process.rq_worker import make_worker
from workers.runs import job_names
from workers.runs.queueing import submit
from workers.runs.store import RunStore


@pytest.mark.parametrize("name", job_names.ALL)
def test_every_job_name_imports_to_a_function_of_the_jobs_package(name: str) -> None:
    func = import_attribute(name)
    assert (
        callable(func) and func.__module__.startswith("workers.jobs.") and f"{func.__module__}.{func.__name__}" == name
    )


def test_every_old_name_points_at_a_current_one_and_no_longer_imports() -> None:
    for old, new in job_names.RENAMED.items():
        assert new in job_names.ALL and job_names.current(old) == new
        with pytest.raises((ImportError, AttributeError, ValueError)):  # the module moved: RQ's own Job would fail here
            import_attribute(old)


def test_a_run_queued_under_its_old_name_is_answered_by_a_worker(
    tmp_path: Path, redis_url: str, redis_conn: redis.Redis
) -> None:
    """A job stored before the upgrade ("workers.runs.jobs.continue_run", its failure callback likewise) is
    answered by a worker of this release; RQ's plain Job would fail it with an import error."""
    settings = Settings(data_dir=make_dataset(tmp_path / "data"), home=tmp_path / "home", redis_url=redis_url)
    runtime.install(runtime.build(settings))
    try:
        queue = Queue("legacy-names", connection=redis_conn)
        run = submit(redis_conn, "unused-queue", "What does ORB-1202 mean?")
        job = queue.enqueue(
            "workers.runs.jobs.continue_run",
            run.id,
            job_id=f"legacy-{run.id}",
            on_failure=Callback("workers.runs.jobs.on_job_failure"),
        )
        stored = Job.fetch(job.id, connection=redis_conn)
        assert stored.func_name == "workers.runs.jobs.continue_run"
        atlas_job = AtlasJob.fetch(job.id, connection=redis_conn)
        assert atlas_job.func is runs.continue_run and atlas_job.failure_callback is runs.on_job_failure
        make_worker(queue).work(burst=True)
        assert AtlasJob.fetch(job.id, connection=redis_conn).get_status() == "finished"
        assert RunStore(redis_conn).load(run.id).status == "done"
    finally:
        runtime.install(None)  # type: ignore[arg-type]
