"""A triage card whose duplicate's original cannot be read is still drawn (issue 35 item 7): a 403, a 5xx that
outlasts the retries, or a transfer (a 301) on GitHub's `GET /issues/N` leaves the card with what triage recorded
and a note "#N could not be read: ...", on Slack and on Discord, instead of raising on every redraw.

The real GitHub tracker against the GitHub stand-in, which answers as GitHub documents (a 301 for a transferred
issue, 403 for a token that may not read it)."""

from __future__ import annotations

import json
from pathlib import Path

from bot.discord.triage_card import card_payload
from bot.slack.triage_card import blocks_for
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_writes_harness import tracker_for
from workers.new_issues import wording
from workers.runs.state import Origin, RunState
from workers.runs.triage_record import TriageAction, TriageRecord


def _run(original: int) -> RunState:
    close = TriageAction(
        kind="duplicates",
        mode="draft",
        tool="close_issue",
        call_id="triage-duplicates",
        step=1,
        arguments={"issue_id": 9, "reason": "duplicate", "duplicate_of": original},
    )
    record = TriageRecord(
        repo="acme/rocket",
        issue=9,
        title="Lease lost again",
        author="someone",
        actions=[close],
        suggestions={
            "original": {
                "id": original,
                "title": "Lease lost on restart",
                "url": f"https://github.com/acme/rocket/issues/{original}",
            }
        },
    )
    return RunState(
        id="triage-1",
        question="triage #9",
        origin=Origin(kind="slack", channel="C1"),
        triage=record,
        status="awaiting_approval",
    )


def test_a_403_a_lasting_5xx_or_a_transfer_on_the_originals_lookup_draws_the_card_with_a_note(tmp_path: Path) -> None:
    with GitHubAPI(generate(12, comments=1)) as api:
        tracker, _ = tracker_for(api, tmp_path)
        assert api.transfer(4)
        for why, number in {"403": 3, "503": 5, "transfer": 4}.items():
            run = _run(number)
            assert run.triage is not None
            for draw in (
                lambda: json.dumps(blocks_for(run, tracker)),  # noqa: B023  # drawn in this iteration
                lambda: card_payload(run, tracker)["content"],  # noqa: B023  # drawn in this iteration
            ):
                if why == "403":
                    api.fail_next(rf"GET /repos/acme/rocket/issues/{number}\b", 403)
                elif why == "503":
                    for _ in range(12):  # more than the tracker's retries
                        api.fail_next(rf"GET /repos/acme/rocket/issues/{number}\b", 503)
                shown = draw().replace("\\", "")  # Discord's escapes
                assert wording.UNREADABLE.split(":")[0].format(number=number) in shown, (why, shown)
                assert "Lease lost on restart" in shown, why  # what triage recorded
