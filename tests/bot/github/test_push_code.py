"""A push webhook updates the synced code that changed, and costs nothing when it touched nothing synced (issue 27)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.standins import github_spec
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.standins.github_webhooks import payload
from tests.support.github_harness import run_sync, settings_for
from workers.jobs.github import _push


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(3, comments=1)) as server:
        server.repo.files.update(
            {
                "src/rocket/retry.py": b"def compute_delay(n):\n    return 2 ** n\n",
                "tests/test_retry.py": b"def test_delay():\n    assert True\n",
            }
        )
        yield server
        assert server.violations == []


def _push_of(api: GitHubAPI, **changed: list[str]) -> dict[str, Any]:
    """A push to the default branch whose one commit added, modified or removed these paths."""
    push = github_spec.spec()["x-webhooks"]["push"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    commit = github_spec._fill(github_spec._resolve(push)["properties"]["commits"]["items"], 0)
    commit.update({"added": [], "modified": [], "removed": [], **changed})
    return payload("push", api.repo, ref="refs/heads/main", commits=[commit])


def test_a_push_that_touches_only_files_outside_the_synced_folders_asks_nothing(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path, ATLAS_SYNC_CODE="src")
    assert run_sync(api, settings, build_index=False).complete and settings.github is not None
    before = len(api.calls)
    api.repo.files["tests/test_retry.py"] = b"def test_delay():\n    assert 1\n"
    done = _push(settings.github, settings.data_dir, _push_of(api, modified=["tests/test_retry.py"]))
    assert done.startswith("ignored") and len(api.calls) == before


def test_a_push_under_a_synced_folder_fetches_only_the_changed_blob(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path, ATLAS_SYNC_CODE="src")
    assert run_sync(api, settings, build_index=False).complete and settings.github is not None
    blobs = len(api.requests("GET", "/git/blobs/"))
    api.repo.files["src/rocket/retry.py"] = b"def compute_delay(n):\n    return min(2 ** n, 600)\n"
    done = _push(settings.github, settings.data_dir, _push_of(api, modified=["src/rocket/retry.py"]))
    assert done.endswith("code: 1 written, 0 removed") and len(api.requests("GET", "/git/blobs/")) == blobs + 1
    assert b"600" in (settings.data_dir / "code" / "src/rocket/retry.py").read_bytes()
