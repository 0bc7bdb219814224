"""A new run's record written from the template (workers/runs/queued_record.py) is the run
`RunState(...)` would have made: read back with pydantic, field for field."""

from __future__ import annotations

import json

import pytest

from workers.runs.queued_record import QueuedRecord
from workers.runs.state import Origin, RunState, Turn

QUESTIONS = [
    "What does ORB-1202 mean?",
    'a "quoted" word, a back\\slash, a tab\tand a </script>',
    "ünïcödé, 日本語 and an emoji 🛰️",
    "x" * 4000,
]
ORIGINS = [
    Origin(
        kind="slack", user="U1", channel="C1", thread_ts="1700000000.000100", message_ts="1700000000.000200", team="T1"
    ),
    Origin(kind="slack", user="U2", channel="D2", thread_ts="1.2", message_ts="1.2", team=None),
]


def _closed(head: str, history: list[Turn]) -> str:
    """What the intake script writes: the head, the thread's turns, the closing brace."""
    return head + ',"history":[' + ",".join(t.model_dump_json() for t in history) + "]}"


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("origin", ORIGINS)
def test_the_template_record_reads_back_as_the_run_pydantic_would_write(question: str, origin: Origin) -> None:
    now = 1_800_000_000.123456
    history = [Turn(question="earlier", answer="an answer")]
    record = QueuedRecord.build("slack", "fp0123456789")
    ours = RunState.model_validate_json(_closed(record.head("abcdef0123456789", question, origin, now), history))
    theirs = RunState(
        id="abcdef0123456789",
        question=question,
        origin=origin,
        history=history,
        settings_fingerprint="fp0123456789",
        created_at=now,
        updated_at=now,
        unfiled=True,
    )
    assert ours.model_dump() == theirs.model_dump()
    assert ours.surface.kind == "slack" and ours.status == "queued"


def test_the_record_is_json_with_each_field_once() -> None:
    head = QueuedRecord.build("slack", None).head("abcdef0123456789", "q", ORIGINS[0], 1.5)
    pairs = json.loads(_closed(head, []), object_pairs_hook=lambda items: items)
    names = [name for name, _ in pairs]
    assert len(names) == len(set(names)) == len(RunState.model_fields)


def test_the_fixed_part_is_the_same_for_every_build() -> None:
    """A default that varies (a factory drawing ids or times) would be frozen into every run's record."""
    assert QueuedRecord.build("slack", "fp").defaults == QueuedRecord.build("slack", "fp").defaults


def test_a_record_refuses_an_origin_of_another_platform() -> None:
    with pytest.raises(ValueError, match="slack record"):
        QueuedRecord.build("slack", None).head("abcdef0123456789", "q", Origin(kind="discord", channel="1"), 1.0)
