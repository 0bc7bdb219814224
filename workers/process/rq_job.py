"""The RQ job class Atlas's workers run: RQ's own, reading the job names of an earlier release as today's.

A job's function and failure callback are stored in Redis by dotted name and imported when the job runs.
After an upgrade that moved a job, jobs queued before it would fail with an import error; this class
resolves them through `workers.runs.job_names.RENAMED` instead, so nothing queued is lost.
"""

from __future__ import annotations

from typing import Any

from rq.job import Job
from rq.utils import import_attribute

from workers.runs.job_names import RENAMED


class AtlasJob(Job):
    """RQ's Job, whose function and failure callback are looked up under their current names."""

    @property
    def func(self) -> Any:
        name = self.func_name
        if name in RENAMED and not self.instance:
            return import_attribute(RENAMED[name])
        return super().func

    @property
    def failure_callback(self) -> Any:
        name = self._failure_callback_name
        if name in RENAMED:
            self._failure_callback_name = RENAMED[name]
        return super().failure_callback
