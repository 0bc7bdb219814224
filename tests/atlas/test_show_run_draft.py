"""`atlas runs show`'s plain view says who drafted a filing run's issue, and why the model's draft was not used."""

from __future__ import annotations

import pytest

from atlas.cli.show_run import describe
from workers.runs.filing_record import FilingRecord
from workers.runs.state import RunState


@pytest.mark.parametrize(
    ("drafted_by", "failure", "line"),
    [
        ("model", "", "draft: model"),
        ("thread", "", "draft: the thread's words"),
        (
            "thread",
            "ModelTimeout: no reply in 20s",
            "draft: the thread's words (the model's draft failed: ModelTimeout: no reply in 20s)",
        ),
    ],
)
def test_a_filing_run_says_who_drafted_it(drafted_by: str, failure: str, line: str) -> None:
    run = RunState(
        question="file an issue", filing=FilingRecord(source_run="r1", drafted_by=drafted_by, model_failure=failure)
    )
    assert line in describe(run).splitlines()


def test_a_run_that_filed_nothing_has_no_draft_line() -> None:
    shown = describe(RunState(question="what is ORB-1202?"))
    assert not [line for line in shown.splitlines() if line.startswith("draft:")]
