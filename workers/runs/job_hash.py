"""A run's RQ job, as the fields of its Redis hash, written without `Queue.enqueue`.

Why: building an RQ `Job` (options, callbacks, pickling) and enqueueing it through a pipeline is
about half of the Slack ack's Redis cost, and the job of a run never changes: same function, same
options, one argument (the run id). So RQ builds the hash once per process (`JobTemplate.build`),
and each run fills in the few fields that vary (its data, description and timestamps). The bot's
intake script (bot/slack/intake.py) writes it with the run record in one round trip.

The layout is RQ's own (`Job.to_dict`, `Queue._enqueue_async_job`), checked for the RQ versions
pinned in pyproject.toml; tests/workers/runs/test_job_hash.py compares it field by field with what `enqueue`
writes, reads it back with `Job.fetch`, and has a real worker run it, so an RQ upgrade that moves
the layout fails there rather than in production.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import UTC, datetime

import redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.serializers import DefaultSerializer
from rq.utils import now

from workers.runs.job_names import CONTINUE_RUN
from workers.runs.queueing import DEFAULT_SLACK_OUTAGE_SECONDS, job_id, job_options

RUN_FUNCTION = CONTINUE_RUN  # the job's function, by name (job_names): the bot never calls it
_PLACEHOLDER = "0000000000000000"  # a run id while building the template; replaced per run
_PER_RUN = ("data", "description", "created_at", "enqueued_at")
_STORED_MAX = 0xFFFF  # one stored deflate block holds at most this many bytes


def stored_zlib(data: bytes) -> bytes:
    """`data` as a zlib stream of one stored (uncompressed) block: what `zlib.decompress` (RQ's read
    of a job's `data`) returns `data` from. Why not `zlib.compress`: deflating these ~90 bytes
    allocates and clears a 256 KiB state each time, 20-300 us of the ack on a busy threaded process,
    to save about 15 bytes."""
    if len(data) > _STORED_MAX:
        raise ValueError(f"a stored zlib block holds at most {_STORED_MAX} bytes, got {len(data)}")
    size = len(data).to_bytes(2, "little")
    inverse = (len(data) ^ 0xFFFF).to_bytes(2, "little")
    return b"\x78\x01\x01" + size + inverse + data + zlib.adler32(data).to_bytes(4, "big")


def stamp(moment: datetime) -> str:
    """`moment` (UTC) as RQ writes its timestamps (`rq.utils.utcformat`): isoformat instead of
    strftime, which took twice as long on the ack's path."""
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _text(value: object) -> bytes | str:
    """The value as redis-py would send it (bytes stay bytes; enums and numbers become text)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, JobStatus):
        return value.value
    return str(value)


@dataclass(frozen=True)
class JobTemplate:
    """The constant fields of a run's job hash, and how to fill in one run's."""

    queue_key: str
    fields: tuple[tuple[str, bytes | str], ...]
    description: str  # with _PLACEHOLDER where the run id goes

    @classmethod
    def build(
        cls, conn: redis.Redis, queue_name: str, *, slack_outage_seconds: float = DEFAULT_SLACK_OUTAGE_SECONDS
    ) -> JobTemplate:
        """Let RQ create the job once (no Redis call) and keep what every run's job shares."""
        options = job_options(_PLACEHOLDER, slack_outage_seconds=slack_outage_seconds)
        queue = Queue(queue_name, connection=conn)
        job = queue.create_job(
            RUN_FUNCTION,
            args=(_PLACEHOLDER,),
            timeout=options["job_timeout"],
            result_ttl=options["result_ttl"],
            failure_ttl=options["failure_ttl"],
            description=options["description"],
            job_id=options["job_id"],
            retry=options["retry"],
            on_failure=options["on_failure"],
        )
        job.origin = queue.name  # what `Queue.enqueue` sets before it saves (`_prepare_for_queue`)
        job.enqueued_at = now()
        mapping = job.to_dict()
        mapping["status"] = JobStatus.QUEUED.value  # `_persist_job` writes it with the hash
        fields = tuple((k, _text(v)) for k, v in mapping.items() if k not in _PER_RUN)
        return cls(queue_key=queue.key, fields=fields, description=str(mapping["description"]))

    @property
    def queues_key(self) -> str:
        return Queue.redis_queues_keys

    def job_id(self, run_id: str, resume: int = 0) -> str:
        return job_id(run_id, resume)

    def job_key(self, run_id: str, resume: int = 0) -> str:
        return Job.key_for(job_id(run_id, resume))

    def per_run(self, run_id: str, resume: int = 0) -> list[bytes | str]:
        """The fields that vary, and their values for run `run_id` (or its resume of step `resume`: the
        same job under another id and description, as `queueing.enqueue(..., resume=step)` writes it),
        flat, as HSET takes them."""
        at = stamp(datetime.now(UTC))
        data = stored_zlib(DefaultSerializer.dumps((RUN_FUNCTION, None, (run_id,), {})))
        description = self.description.replace(_PLACEHOLDER, run_id) + (f" resume {resume}" if resume else "")
        return ["created_at", at, "data", data, "description", description, "enqueued_at", at]

    def fields_for(self, run_id: str, resume: int = 0) -> list[bytes | str]:
        """Every field of the job's hash, flat, as HSET takes them (for a script that passes them as ARGV)."""
        return [*(x for pair in self.fields for x in pair), *self.per_run(run_id, resume)]
