"""How the sync walks GitHub's listings: `since` as GitHub documents it, the Link header's next URL, and a
resumed sync that misses nothing changed while it was stopped (#22 items 4, 5, 20)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from atlas.cli.main import main
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import cli_env, exported, run_sync, settings_for

STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def _issues(api: GitHubAPI) -> set[int]:
    return {n for n, i in api.repo.issues.items() if "pull_request" not in i}


def test_since_goes_out_as_github_documents_it_on_every_page(tmp_path: Path) -> None:
    with GitHubAPI(generate(120, comments=0)) as api:
        settings = settings_for(api, tmp_path)
        assert run_sync(api, settings, build_index=False).complete
        for number in range(1, 111):  # 110 edits: the `since` listing has two pages
            api.repo.edit_issue(number, body=f"edited {number}")
        report = run_sync(api, settings, build_index=False)
        sent = [c.query["since"] for c in api.calls if "since" in c.query]
        assert sent and all(STAMP.fullmatch(s) for s in sent), sent
        assert report.complete, report.stopped
        assert all(row["body"] == f"edited {n}" for n, row in exported(settings).items() if n <= 110)
        assert api.violations == []


def test_pages_are_followed_by_the_link_header_not_built(tmp_path: Path) -> None:
    with GitHubAPI(generate(110, comments=105)) as api:
        api.opaque_pages = True  # next URLs carry page tokens; page=2 built by hand is refused with 422
        settings = settings_for(api, tmp_path)
        report = run_sync(api, settings, build_index=False)
        assert report.complete, report.stopped
        assert set(exported(settings)) == _issues(api)
        assert report.counts["comments"] == len(api.repo.comments)
        assert all(c.status != 422 for c in api.calls)
        assert api.violations == []


def test_a_link_to_another_host_is_not_followed(tmp_path: Path) -> None:
    with GitHubAPI(generate(110, comments=0)) as api:
        api.link_base = "http://elsewhere.invalid/api/v3"
        report = run_sync(api, settings_for(api, tmp_path), build_index=False)
        assert not report.complete and "pointed away" in (report.stopped or "")


def _kill_at(api: GitHubAPI, pattern: str) -> tuple[threading.Event, threading.Event]:
    """Hold the request matching `pattern` until released; `arrived` is set when it comes."""
    arrived, release = threading.Event(), threading.Event()

    def hold() -> None:
        arrived.set()
        release.wait(10)

    api.before(pattern, hold)
    return arrived, release


def test_a_sync_killed_mid_listing_and_rerun_misses_nothing_that_changed_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with GitHubAPI(generate(130, comments=5)) as api:  # 109 issues and 21 pull requests: two pages
        env = {**os.environ, **api.env(), "ATLAS_HOME": str(tmp_path), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        env.pop("ATLAS_DATA", None)
        arrived, release = _kill_at(api, r"GET /repos/acme/rocket/issues\?.*page=2")
        cmd = [sys.executable, "-m", "atlas.cli.main", "sync", "github", "acme/rocket"]
        first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert arrived.wait(30), "the sync never asked for issues page 2"
            first.send_signal(signal.SIGKILL)
            first.wait(10)
        finally:
            release.set()
        # meanwhile, two old issues (on the last page) change and move to the top of the listing
        old = sorted(
            (i for i in api.repo.issues.values() if "pull_request" not in i and i["state"] == "open"),
            key=lambda i: i["updated_at"],
        )[:2]
        assert all(int(i["number"]) < 20 for i in old)  # on the last page, not yet synced
        api.repo.edit_issue(old[0]["number"], title="Edited while the sync was down")
        api.repo.add_comment(old[1]["number"], "commented while the sync was down")
        cli_env(monkeypatch, api, tmp_path)
        assert main(["sync", "github", "acme/rocket"]) == 0  # the rerun, in this process
        stdout = capsys.readouterr().out
        settings = settings_for(api, tmp_path)
        rows = exported(settings)
        assert set(rows) == _issues(api)
        assert rows[old[0]["number"]]["title"] == "Edited while the sync was down"
        assert any(c["body"] == "commented while the sync was down" for c in rows[old[1]["number"]]["comments"])
        open_count = sum(1 for i in api.repo.issues.values() if i["state"] == "open")
        assert f"{open_count:,} of GitHub's {open_count:,} open" in stdout, stdout
        assert api.violations == []


def test_changes_during_a_walk_are_caught_by_the_same_sync(tmp_path: Path) -> None:
    with GitHubAPI(generate(130, comments=5)) as api:
        settings = settings_for(api, tmp_path)
        oldest = min((i for i in api.repo.issues.values() if "pull_request" not in i), key=lambda i: i["updated_at"])
        api.before(
            r"GET /repos/acme/rocket/issues\?.*page=2", lambda: api.repo.edit_issue(oldest["number"], title="moved up")
        )
        report = run_sync(api, settings, build_index=False)
        assert report.complete
        assert exported(settings)[oldest["number"]]["title"] == "moved up"
        assert set(exported(settings)) == _issues(api)
        started = time.monotonic()
        before = len(api.calls)
        assert run_sync(api, settings, build_index=False).complete and time.monotonic() - started < 10
        assert all(c.status == 304 for c in api.calls[before:])  # and the next sync costs nothing
