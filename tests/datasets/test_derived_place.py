"""Where derived files go (datasets/derived.py): beside a data folder Atlas made, else under ATLAS_HOME,
keyed by the folder's path; a folder Atlas did not make is only ever read."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from datasets import derived, generate, tracker_db, tracker_journal
from tests.support.tools_dataset import make_dataset
from tools import open_corpus
from tools.demo_tracker import SqliteTracker


def _files(folder: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_mtime_ns) for p in folder.rglob("*"))


@pytest.fixture
def export(tmp_path: Path) -> Iterator[Path]:
    """Someone else's export, read-only: no marker, every write bit off (root ignores them: the
    file listing below is what proves nothing was written)."""
    data = make_dataset(tmp_path / "src" / "export")
    (data / derived.MARKER).unlink()
    for path in [data, *data.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    yield data
    for path in [data, *data.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)


def test_a_folder_atlas_did_not_make_is_only_read_and_its_index_lives_under_home(export: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    before = _files(export)
    corpus = open_corpus(export, home)
    assert corpus.issues.search("lease", None, 3)  # the issues are searchable
    tracker = SqliteTracker(export, home=home)
    tracker.add_labels(4, ["type:bug"])  # a demo tracker write: journaled, applied, under home too
    assert "type:bug" in corpus.issues.labels([4])[4]
    assert _files(export) == before
    place = derived.root(export, home)
    assert place.parent == home / "data" and place.name.startswith("export-")
    assert tracker_db.db_path(export, home) == place / "issues" / "index.db"
    assert tracker_journal.journal_path(export, home).is_file()
    assert not os.access(export / "issues", os.W_OK) or os.geteuid() == 0  # really read-only, unless root


def test_with_no_home_a_folder_atlas_did_not_make_is_still_only_read(
    export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Callers with no settings (tests, benchmarks) pass no home: the derived files go under the
    temporary folder, never into someone else's folder."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr("tempfile.tempdir", None)  # tempfile caches its choice: make it read TMPDIR again
    (tmp_path / "tmp").mkdir()
    before = _files(export)
    corpus = open_corpus(export, None, semantic=False)
    assert corpus.issues.search("lease", None, 3)
    assert _files(export) == before
    place = derived.root(export, None)
    assert place.parent == tmp_path / "tmp" / "atlas-derived" and (place / "issues" / "index.db").is_file()


def test_two_folders_of_one_name_do_not_share_an_index(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first, second = (make_dataset(tmp_path / side / "data") for side in ("a", "b"))
    for data in (first, second):
        (data / derived.MARKER).unlink()
    assert derived.root(first, home) != derived.root(second, home)
    assert derived.root(first, home) == derived.root(tmp_path / "a" / ".." / "a" / "data", home)  # by real path


def test_a_folder_atlas_made_keeps_its_index_beside_the_data(tmp_path: Path) -> None:
    data = make_dataset(tmp_path / "demo")  # written as `atlas dataset build` writes the demo: marked
    assert derived.owned(data)
    assert open_corpus(data, tmp_path / "home").issues.search("lease", None, 1)
    assert (data / "issues" / "index.db").is_file() and not (tmp_path / "home").exists()


def test_the_bundled_demo_and_its_builder_are_marked(tmp_path: Path) -> None:
    assert derived.owned(generate.DATA_DIR)
    generate.build(tmp_path / "fresh")
    assert derived.owned(tmp_path / "fresh")


def test_a_copy_of_the_demo_without_its_marker_is_read_only_to_atlas(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(
        generate.DATA_DIR, copy, ignore=shutil.ignore_patterns("*.db", "*.db-*", ".writes.lock", derived.MARKER)
    )
    open_corpus(copy, tmp_path / "home")
    assert not (copy / "issues" / "index.db").exists()
    assert tracker_db.db_path(copy, tmp_path / "home").is_file()


def test_a_repository_synced_before_the_marker_existed_is_still_atlas_s(tmp_path: Path) -> None:
    folder = make_dataset(tmp_path / "github" / "o" / "r")
    (folder / derived.MARKER).unlink()
    (folder / ".sync").mkdir()
    assert derived.root(folder, tmp_path / "home") == folder
