"""`atlas sync github` brings the default branch's code by blob sha, with the commit its permalinks use (issue 27).

Against the GitHub stand-in (git trees, blobs and the head commit, validated against GitHub's description).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets.github.code import _target
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for
from tools import ToolContext, dispatch, open_corpus, v2_registry

LEASE = b'def renew_lease(job):\n    """Push the lease out."""\n    return job\n'


@pytest.fixture
def api() -> GitHubAPI:
    with GitHubAPI(generate(3, comments=1)) as server:
        server.repo.files.update(
            {
                "src/rocket/lease.py": LEASE,
                "src/rocket/retry.py": b"def compute_delay(n):\n    return 2 ** n\n",
                "node_modules/left-pad/index.js": b"module.exports = 1\n",
                "dist/app.min.js": b"x=1\n",
                "assets/data.bin": b"\x00\x01binary",
                "src/link.py": b"/etc/passwd",
            }
        )
        server.repo.modes["src/link.py"] = "120000"  # a symlink in git: its blob is the target's path
        yield server
        assert server.violations == []


def _code(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder / "code")) for p in (folder / "code").rglob("*") if p.is_file())


def test_code_is_synced_by_blob_with_the_commit_for_permalinks(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    report = run_sync(api, settings)
    assert report.complete, report.stopped
    assert _code(settings.data_dir) == [
        "README.md",
        "src/rocket/__init__.py",
        "src/rocket/lease.py",
        "src/rocket/retry.py",
    ]
    repo = json.loads((settings.data_dir / "knowledge" / "repo.json").read_text())
    assert repo["commit"] == api.repo.commit("main")["sha"] and repo["url"] == "https://github.com/acme/rocket"
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home))
    out = dispatch(
        v2_registry(), "search_code", json.dumps({"query": "renew_lease", "path_prefix": None, "limit": 3}), ctx
    ).text
    assert f"https://github.com/acme/rocket/blob/{repo['commit']}/src/rocket/lease.py#L1-L3" in out


def test_an_unchanged_branch_costs_only_304s_and_a_change_fetches_only_its_blob(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).complete
    blobs = len(api.requests("GET", "/git/blobs/"))
    again = run_sync(api, settings)
    assert again.requests == again.not_modified and len(api.requests("GET", "/git/blobs/")) == blobs
    api.repo.files["src/rocket/lease.py"] = LEASE + b"# renewed\n"
    del api.repo.files["src/rocket/retry.py"]
    changed = run_sync(api, settings)
    assert (changed.code_written, changed.code_removed) == (1, 1)
    assert len(api.requests("GET", "/git/blobs/")) == blobs + 1
    assert "src/rocket/retry.py" not in _code(settings.data_dir)
    assert (settings.data_dir / "code" / "src/rocket/lease.py").read_bytes().endswith(b"# renewed\n")


def test_code_can_be_limited_to_folders_or_turned_off(api: GitHubAPI, tmp_path: Path) -> None:
    some = settings_for(api, tmp_path / "a", ATLAS_SYNC_CODE="src/rocket")
    assert run_sync(api, some).complete and _code(some.data_dir) == [
        "src/rocket/__init__.py",
        "src/rocket/lease.py",
        "src/rocket/retry.py",
    ]
    off = settings_for(api, tmp_path / "b", ATLAS_SYNC_CODE="off")
    assert run_sync(api, off).complete and not (off.data_dir / "code").exists()


@pytest.mark.parametrize("path", ["../evil.py", "/etc/passwd", "a/../../evil.py", "a/./b.py", "a\\..\\b.py", ""])
def test_a_tree_path_that_is_not_plainly_inside_is_never_written(tmp_path: Path, path: str) -> None:
    assert _target(tmp_path / "code", path) is None


def test_a_push_to_the_default_branch_updates_only_the_changed_code(api: GitHubAPI, tmp_path: Path) -> None:
    from tests.standins.github_webhooks import payload
    from workers.jobs.github import _push

    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).complete and settings.github is not None
    blobs = len(api.requests("GET", "/git/blobs/"))
    api.repo.files["src/rocket/retry.py"] = b"def compute_delay(n):\n    return min(2 ** n, 600)\n"
    done = _push(settings.github, settings.data_dir, payload("push", api.repo, ref="refs/heads/main"))
    assert done.endswith("code: 1 written, 0 removed") and len(api.requests("GET", "/git/blobs/")) == blobs + 1
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home))
    out = dispatch(
        v2_registry(), "read_file", json.dumps({"path": "src/rocket/retry.py", "start": 1, "end": 2}), ctx
    ).text
    assert "2: " in out and "min(2 ** n, 600)" in out


def test_merged_pull_requests_come_with_the_issue_listing_and_lead_from_an_issue(
    api: GitHubAPI, tmp_path: Path
) -> None:
    bug = api.repo.add_issue("Leases expire during failover", "Jobs ran twice after a failover.")
    fix = api.repo.add_issue(
        "Renew leases with jitter", f"Fixes #{bug['number']}. Heartbeats now back off.", pull=True, state="closed"
    )
    settings = settings_for(api, tmp_path)
    report = run_sync(api, settings)
    assert report.complete
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home))
    out = dispatch(v2_registry(), "find_fix", json.dumps({"issue_id": bug["number"]}), ctx).text
    assert (
        f"fixed by PR #{fix['number']} [merged " in out
        and f"https://github.com/acme/rocket/pull/{fix['number']}" in out
    )
    pulls = [r.path for r in api.requests("GET") if r.path.startswith("/repos/acme/rocket/pulls")]
    assert pulls == [f"/repos/acme/rocket/pulls/{fix['number']}/files"]  # only its changed paths (github_pull_files)


def test_releases_are_synced_and_an_unchanged_listing_costs_a_304(api: GitHubAPI, tmp_path: Path) -> None:
    bug = api.repo.add_issue("Leases expire during failover", "Jobs ran twice.")
    api.repo.add_release(
        "v1.2.0", f"## Fixed\n- Leases survive a failover (fixes #{bug['number']}).", name="Rocket 1.2.0"
    )
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).releases == 1
    ctx = ToolContext(corpus=open_corpus(settings.data_dir, settings.home))
    out = dispatch(
        v2_registry(), "search_history", json.dumps({"query": "failover", "kind": "release", "limit": 3}), ctx
    ).text
    assert "- release v1.2.0 [" in out and "https://github.com/acme/rocket/releases/tag/v1.2.0" in out
    assert run_sync(api, settings).releases is None  # 304
    api.repo.add_release("v1.3.0", "## Added\n- Valkey support.")
    assert run_sync(api, settings).releases == 2
    off = settings_for(api, tmp_path / "off", ATLAS_SYNC_RELEASES="off")
    assert run_sync(api, off).complete and not (off.data_dir / "knowledge" / "releases.jsonl").exists()
