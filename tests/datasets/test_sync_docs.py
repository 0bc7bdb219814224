"""Docs from a git tree GitHub cut short (`truncated: true`): found folder by folder, and nothing deleted on a
partial read (#22 item 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for

SYNCED = ["guides-deep-tuning-workers", "guides-setup", "index", "reference-config"]


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(3, comments=1)) as server:
        yield server
        assert server.violations == []


def _docs(folder: Path) -> list[str]:
    return sorted(p.stem for p in (folder / "docs").glob("*.md"))


def test_a_truncated_tree_is_walked_folder_by_folder(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    api.tree_limit = 6  # a recursive answer has more entries than this: GitHub cuts it and says truncated
    api.repo.files["docs/reference/zz-last.md"] = b"# Last\n\nSorted after everything else.\n"
    report = run_sync(api, settings, build_index=False)
    assert report.complete, report.stopped
    assert _docs(settings.data_dir) == sorted([*SYNCED, "reference-zz-last"])


def test_a_partial_tree_deletes_nothing(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings, build_index=False).complete and _docs(settings.data_dir) == SYNCED
    del api.repo.files["docs/reference/config.md"]  # the tree changes; this doc is really gone...
    api.tree_limit = 2  # ...but every answer is cut short, so the sync cannot know it
    report = run_sync(api, settings, build_index=False)
    assert report.docs_removed == 0 and _docs(settings.data_dir) == SYNCED
    api.tree_limit = None  # a complete read removes it
    report = run_sync(api, settings, build_index=False)
    assert report.docs_removed == 1 and _docs(settings.data_dir) == [d for d in SYNCED if d != "reference-config"]
