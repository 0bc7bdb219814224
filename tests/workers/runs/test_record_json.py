"""A warm `atlas ask` writes and reads a run's record as JSON (workers/runs/record_json.py): what it writes is what
`submit` would save, and what it prints of a finished record is what the run's model prints."""

from __future__ import annotations

import dataclasses
import json

import pytest
import redis

from atlas.cli.ask import render
from workers.messages.answer import answer_of
from workers.runs import record_json
from workers.runs.queueing import submit
from workers.runs.record_json import FinishedRun
from workers.runs.state import AnsweredBy, Origin, RunState, StepRecord, Usage
from workers.runs.store import RUN_TTL_SECONDS, RunStore, run_key
from workers.runs.triage_record import TriageRecord


def test_a_new_record_is_the_run_submit_would_save(redis_conn: redis.Redis) -> None:
    record = record_json.new_record("What does ORB-1202 mean?", "ada", "0123456789ab")
    record_json.save_new(redis_conn, record)
    loaded = RunStore(redis_conn).load(record["id"])
    made = submit(
        redis_conn, "unused", "What does ORB-1202 mean?", Origin(kind="cli", user="ada"), fingerprint="0123456789ab"
    )
    times = {"id", "created_at", "updated_at"}
    assert loaded.model_dump(exclude=times) == RunStore(redis_conn).load(made.id).model_dump(exclude=times)
    assert (loaded.id, loaded.created_at) == (record["id"], record["created_at"])
    assert 0 < redis_conn.ttl(run_key(record["id"])) <= RUN_TTL_SECONDS
    assert record_json.load(redis_conn, record["id"]) == record


def _finished() -> list[RunState]:
    done = RunState(
        question="q",
        status="done",
        answer="ORB-1202 is `PermanentError`.",
        stop_reason="done",
        sources=["error-codes", "#12", "https://example.org/pull/3"],
        source_urls={"error-codes": "https://docs.example.org/error-codes"},
        steps=[StepRecord(index=1, tools=["search_docs"]), StepRecord(index=2)],
        usage=Usage(input_tokens=1200, cached_tokens=200, output_tokens=34),
        cost_usd=0.00014,
        answered_by=AnsweredBy(model="gpt-6-luna", data_dir="/data/orbit"),
    )
    failed = done.model_copy(
        update={"status": "failed", "answer": "boom", "error": "boom", "stop_reason": "internal_error"}
    )
    partial = done.model_copy(
        update={"status": "partial", "partial": True, "stop_reason": "max_steps", "answered_by": None}
    )
    triage = done.model_copy(update={"triage": TriageRecord.model_validate({"issue": 7, "title": "t", "repo": "o/r"})})
    return [done, failed, partial, triage]


@pytest.mark.parametrize("run", _finished(), ids=["done", "failed", "partial", "triage"])
def test_a_finished_record_prints_as_its_run_does(run: RunState) -> None:
    read = FinishedRun.of(json.loads(run.model_dump_json()))
    for docs, issues in ((None, None), ("https://docs.example.org", "https://github.com/o/r/issues")):
        assert answer_of(read, docs_base_url=docs, issues_base_url=issues) == answer_of(
            run, docs_base_url=docs, issues_base_url=issues
        )
    assert render(read) == render(run)
    assert read.final and read.usage.total == run.usage.total


def test_what_a_finished_record_reads_are_fields_of_the_run() -> None:
    """A field renamed on RunState fails here, not as an answer printed without it."""
    assert {f.name for f in dataclasses.fields(FinishedRun)} <= set(RunState.model_fields)
    assert record_json.FINAL_STATUSES == frozenset(s for s in ("done", "partial", "failed", "expired"))
