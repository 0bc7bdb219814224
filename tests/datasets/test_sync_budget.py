"""The sync's per-item sources within a share of GitHub's hourly limit, and the caps on what they read
(issue 35 item 13), against the GitHub stand-in's rate-limit headers and its request log."""

from __future__ import annotations

from pathlib import Path

from datasets.github import budget
from tests.standins.github_api import GitHubAPI
from tests.standins.github_git import blob_sha
from tests.standins.github_pulls import set_files
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for

LIMIT = 60  # GitHub's x-ratelimit-limit, as the stand-in sends it: the sync may spend half


def _files_asked(api: GitHubAPI) -> list[str]:
    return [c.path.split("/")[-2] for c in api.requests("GET", r"/pulls/\d+/files$") if c.status == 200]


def test_pull_requests_files_stop_at_the_sync_s_share_of_the_limit_and_the_next_sync_goes_on(tmp_path: Path) -> None:
    with GitHubAPI(generate(3, comments=1), rate_limit=LIMIT) as api:
        pulls = [api.repo.add_issue(f"Change {i}", "A change.", pull=True)["number"] for i in range(40)]
        for number in pulls:
            set_files(api.repo, number, [f"src/rocket/m{number}.py"])
        settings = settings_for(api, tmp_path, ATLAS_SYNC_CODE="off")
        first = run_sync(api, settings, build_index=False)
        asked = _files_asked(api)
        assert first.complete and 0 < len(asked) < len(pulls)  # stopped part way, not all 40 (one request each)
        assert len(api.calls) <= LIMIT * budget.SHARE + 1
        assert api.rate_remaining >= LIMIT * (1 - budget.SHARE) - 1  # the rest left for questions and writes
        [left] = [s for s in first.skipped if "pull requests' files left for the next sync" in s]
        assert left.startswith(f"{len(pulls) - len(asked)} pull requests' files")
        assert f"{LIMIT} requests an hour" in left
        api.rate_remaining = LIMIT  # the hour went by
        second = run_sync(api, settings, build_index=False)
        again = _files_asked(api)[len(asked) :]
        assert second.complete and not set(again) & set(asked)  # none asked twice
        assert (
            sorted(map(int, asked + again)) == pulls and second.skipped == []
        )  # the rest, within the new hour's share
        assert api.violations == []


def test_big_docs_symlinked_docs_and_minified_code_are_left_out_and_said(tmp_path: Path) -> None:
    with GitHubAPI(generate(3, comments=1)) as api:
        api.repo.files["docs/export.md"] = b"# Export\n\n" + b"A line of an exported page.\n" * 30_000  # ~800 KiB
        api.repo.files["docs/elsewhere.md"] = b"../../etc/passwd"
        api.repo.modes["docs/elsewhere.md"] = "120000"
        api.repo.files["src/rocket/bundle.js"] = b"var a=1;" * 20_000  # 160 KiB on one line, under the size cap
        settings = settings_for(api, tmp_path)
        report = run_sync(api, settings, build_index=False)
        written = {p.name for p in (settings.data_dir / "docs").iterdir()}
        assert "export.md" not in written and "elsewhere.md" not in written and "index.md" in written
        assert not (settings.data_dir / "code" / "src" / "rocket" / "bundle.js").exists()
        assert (settings.data_dir / "code" / "src" / "rocket" / "__init__.py").exists()
        said = "\n".join(report.skipped)
        assert "doc docs/export.md left out" in said and "doc docs/elsewhere.md left out: a symlink" in said
        assert "code src/rocket/bundle.js left out: minified" in said
        blobs = {c.path.rsplit("/", 1)[-1] for c in api.requests("GET", r"/git/blobs/")}
        assert blob_sha(api.repo.files["docs/export.md"]) not in blobs  # left out by its size: never fetched
        assert api.violations == []


def test_github_s_three_thousand_file_cut_of_a_pull_request_is_said(tmp_path: Path) -> None:
    with GitHubAPI(generate(3, comments=1)) as api:
        big = api.repo.add_issue("Rename everything", "Huge.", pull=True)["number"]
        set_files(api.repo, big, [f"src/m{i}.py" for i in range(budget.PULL_FILES_CUT + 200)])
        report = run_sync(api, settings_for(api, tmp_path, ATLAS_SYNC_CODE="off"), build_index=False)
        assert any(f"pull request #{big}: GitHub lists only its first 3000" in s for s in report.skipped)
        assert len(_files_asked(api)) == 30  # 3,000 files, 100 a page: the stand-in cuts as GitHub does


def test_code_files_left_out_by_the_share_and_files_changed_meanwhile_are_fetched_once_the_hour_allows(
    tmp_path: Path,
) -> None:
    with GitHubAPI(generate(3, comments=0), rate_limit=LIMIT) as api:
        api.repo.files = {f"src/m{i:02d}.py": f"X = {i}\n".encode() for i in range(50)}
        settings = settings_for(api, tmp_path, ATLAS_SYNC_CODE="src")
        code = settings.data_dir / "code" / "src"
        first = run_sync(api, settings, build_index=False)
        kept = sorted(p.name for p in code.iterdir())
        assert first.complete and 0 < len(kept) < 50  # the share spent part way
        [left] = [s for s in first.skipped if "code files left for the next sync" in s]
        assert left.startswith(f"{50 - len(kept)} code files")
        fetched, missing = f"src/{kept[0]}", next(f"src/m{i:02d}.py" for i in range(50) if f"m{i:02d}.py" not in kept)
        for path in (fetched, missing):  # one already on disk, one not yet fetched: both change
            api.repo.files[path] = b"X = 'changed'\n"
        same_hour = run_sync(api, settings, build_index=False)  # GitHub's remaining is at the reserve: nothing
        assert (code / fetched.split("/")[1]).read_bytes() != b"X = 'changed'\n"
        [why] = [s for s in same_hour.skipped if "code files left for the next sync" in s]  # and says why
        assert "remaining requests this hour are down to the 50%" in why and "this sync spent" not in why
        for _ in range(3):  # the hours go by until the rest is in
            api.rate_remaining = LIMIT
            later = run_sync(api, settings, build_index=False)
            if not any("code files" in s for s in later.skipped):
                break
        for path, body in api.repo.files.items():
            assert (settings.data_dir / "code" / path).read_bytes() == body, path  # none stale, none missing
        before = len(api.calls)
        api.rate_remaining = LIMIT
        run_sync(api, settings, build_index=False)
        heads = [c for c in api.calls[before:] if "/commits/" in c.path]
        assert [c.status for c in heads] == [304]  # complete now: the head's ETag kept
        assert not [c for c in api.calls[before:] if "/git/trees/" in c.path and "recursive" in c.query]
        assert api.violations == []
