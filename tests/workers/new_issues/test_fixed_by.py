"""Where an original closed as completed was fixed (issue 36 item 5): the merged pull request that closes it and
the release that ships it, read from the synced knowledge files, named by the card and the duplicate comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from datasets.knowledge_files import PULLS, RELEASES, write_jsonl
from datasets.tracker_db import SOURCE
from tests.standins.github_repo import Repo
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import TRACEBACK, inbox, text_of
from workers.new_issues import wording
from workers.new_issues.fixed_by import where

TITLE = "KeyError 'retry_policy' when the scheduler starts"
BODY = f"After the upgrade to 2.3 the scheduler will not start:\n\n{TRACEBACK}\n"


def _pull(number: int, body: str, merged_at: str | None, closes: list[int] | None = None) -> dict[str, Any]:
    return {
        "number": number,
        "title": f"Change {number}",
        "body": body,
        "author": "maya",
        "state": "merged" if merged_at else "open",
        "created_at": "2026-01-01T00:00:00Z",
        "merged_at": merged_at,
        "closes": closes or [],
        "files": [],
        "url": f"https://github.com/acme/rocket/pull/{number}",
    }


def _release(tag: str, when: str, body: str) -> dict[str, Any]:
    url = f"https://github.com/acme/rocket/releases/tag/{tag}"
    return {"tag": tag, "name": tag, "published_at": when, "author": "maya", "body": body, "url": url}


def _data(root: Path) -> Path:
    write_jsonl(root / SOURCE, [{"id": 1, "title": "Scheduler", "body": "", "state": "open", "labels": []}])
    write_jsonl(
        root / PULLS,
        [
            _pull(20, "Fixes #4: cron seconds.", "2026-02-01T00:00:00Z"),
            _pull(21, "Fixes #5, not merged yet.", None),
            _pull(22, "Scheduler work.", "2026-03-01T00:00:00Z", closes=[6]),
            _pull(23, "Closes #7.", "2026-05-01T00:00:00Z"),
        ],
    )
    write_jsonl(
        root / RELEASES,
        [
            _release("v2.4", "2026-02-10T00:00:00Z", "- Cron expressions with seconds (#20)"),
            _release("v2.5", "2026-04-01T00:00:00Z", "- Faster start"),
        ],
    )
    return root


def test_the_fix_is_the_merged_pull_request_that_closes_it_with_the_release_that_ships_it(tmp_path: Path) -> None:
    data = _data(tmp_path / "data")
    home = tmp_path / "home"
    named = where(data, home, 4)
    assert named is not None and (named["pull"], named["release"], named["named"]) == (20, "v2.4", True)
    after = where(data, home, 6)  # linked by GitHub (closes), shipped by the first release after the merge
    assert after is not None and (after["pull"], after["release"], after["named"]) == (22, "v2.5", False)
    unreleased = where(data, home, 7)
    assert unreleased is not None and (unreleased["pull"], unreleased["release"]) == (23, None)
    assert where(data, home, 5) is None  # its only PR is not merged: nothing says where it was fixed
    assert where(data, home, 99) is None
    assert where(tmp_path / "nothing-synced", home, 4) is None


def test_the_chain_line_names_the_pull_request_and_release_else_says_it_may_be_fixed(tmp_path: Path) -> None:
    data = _data(tmp_path / "data")
    home = tmp_path / "home"
    chain = {"id": 4, "state": "completed", "path": [4], "fixed": where(data, home, 4)}
    [line] = wording.chain_lines(4, chain)
    assert line == "#4 was closed as completed: it was fixed by pull request #20 (v2.4 includes it)."
    [guess] = wording.chain_lines(6, {"id": 6, "state": "completed", "path": [6], "fixed": where(data, home, 6)})
    assert "pull request #22" in guess and "v2.5, the first release after it was merged" in guess
    [none] = wording.chain_lines(7, {"id": 7, "state": "completed", "path": [7], "fixed": where(data, home, 7)})
    assert "pull request #23 (no release includes it yet)" in none
    [unknown] = wording.chain_lines(5, {"id": 5, "state": "completed", "path": [5], "fixed": where(data, home, 5)})
    assert "may already be fixed there" in unknown


def _fixed_and_released(repo: Repo) -> None:
    """#1, the report a new issue repeats, was fixed by a merged pull request that v2.4's notes name."""
    repo.edit_issue(1, state="closed", state_reason="completed")
    pull = repo.add_issue("Read retry_policy with a default", "Fixes #1.", author="maya", pull=True, state="closed")
    repo.add_release("v2.4", f"- The scheduler starts without retry_policy (#{pull['number']})")


def test_the_card_and_the_comment_name_the_pull_request_and_release_that_fixed_the_original(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, prepare=_fixed_and_released) as box:
        pull = max(n for n, i in box.github.repo.issues.items() if i.get("pull_request"))
        new = box.open_issue(TITLE, BODY)
        with box.worker("fixed-by-w1"):
            card = box.cards()[0]
            shown = text_of(card)
            assert "Close as duplicate of" in shown and "#1 " in shown, shown
            line = f"#1 was closed as completed: it was fixed by pull request #{pull} (v2.4 includes it)."
            assert line in shown, shown
            assert box.click(card, "duplicates") == 200
            wait_for(lambda: box.github.requests("PATCH"), what="the close", timeout=90)
        [comment] = [
            c
            for c in box.github.requests("POST", r"/comments$")
            if c.path.endswith(f"/issues/{new['number']}/comments")
        ]
        assert comment.body["body"].startswith("Duplicate of #1.") and line in comment.body["body"]
