"""`atlas dataset`: generating the demo writes only the bundled demo; indexing a project never changes its data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.cli import main as cli
from datasets import derived, generate, tracker_db
from tests.support.tools_dataset import make_dataset


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's own project as ATLAS_DATA, and a stand-in for the bundled demo folder."""
    monkeypatch.setattr(generate, "DATA_DIR", tmp_path / "bundled-orbit")
    monkeypatch.setenv("ATLAS_DATA", str(tmp_path / "my-project"))
    monkeypatch.setenv("ATLAS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ATLAS_SEMANTIC", "off")  # `dataset index` embeds the docs too: its own test turns it on
    data = make_dataset(tmp_path / "my-project")
    (data / derived.MARKER).unlink()  # the user's folder: Atlas did not make it
    return data


def _source(data: Path) -> bytes:
    return (data / "issues" / "issues.jsonl").read_bytes()


def test_dataset_build_never_writes_the_users_data(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _source(project)
    assert cli.main(["dataset", "build"]) == 0
    assert _source(project) == before, "the user's issues.jsonl was overwritten with the demo's issues"
    demo = generate.DATA_DIR
    assert len(_source(demo).splitlines()) == 240  # the demo was generated where the demo lives
    assert tracker_db.db_path(demo).is_file()
    assert "was not touched" in capsys.readouterr().out


def test_dataset_index_rebuilds_a_projects_index_from_its_own_issues(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _source(project)
    files = sorted(p.relative_to(project) for p in project.rglob("*"))
    assert cli.main(["dataset", "index"]) == 0
    assert _source(project) == before
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == files  # nothing written into the project
    db = tracker_db.db_path(project, tmp_path / "home")
    assert db.is_file() and db.is_relative_to(tmp_path / "home" / "data") and f"rebuilt {db}" in capsys.readouterr().out
    assert db.name == "index.db"  # named after what it is, for any project
    titles = {json.loads(line)["title"] for line in before.decode().splitlines()}
    conn = tracker_db.connect_readonly(db)
    assert {row[0] for row in conn.execute("SELECT title FROM issues")} == titles
    assert not (project / "issues" / "orbit.db").exists()
    assert not generate.DATA_DIR.exists()  # indexing a project never generates the demo


def test_dataset_index_without_an_issues_file_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ATLAS_DATA", str(tmp_path / "empty"))
    assert cli.main(["dataset", "index"]) == 2
    assert "no issues file" in capsys.readouterr().err


needs_model = pytest.mark.skipif(
    __import__("tools.docsearch.minilm", fromlist=["model_dir"]).model_dir() is None,
    reason="the embedding model's package is not installed (make setup)",
)


def _kept_and_wanted(data: Path, home: Path) -> tuple[int, int]:
    """(vectors kept in the folder's docs_vectors.db, distinct passages its docs have)."""
    import sqlite3

    from tools.docsearch.bridge import thread_texts
    from tools.docsearch.index import DocsIndex
    from tools.docsearch.pages import load_pages
    from tools.docsearch.semantic import encoder

    store = derived.root(data, home) / "issues" / derived.DOCS_VECTORS
    kept = sqlite3.connect(store).execute("SELECT count(*) FROM vectors").fetchone()[0] if store.is_file() else 0
    vectors = DocsIndex(
        load_pages(data / "docs"), thread_texts(data / "issues" / "issues.jsonl"), semantic=True
    ).vectors
    assert vectors is not None
    model = encoder()
    assert model is not None
    vectors._cut(model)  # the passages, cut as search cuts them, without embedding any
    return kept, len(set(vectors.texts))


@needs_model
def test_dataset_index_embeds_the_docs_and_keeps_the_vectors(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ATLAS_SEMANTIC", "on")
    assert cli.main(["dataset", "index"]) == 0
    kept, wanted = _kept_and_wanted(project, tmp_path / "home")
    assert kept == wanted > 12 and "doc passages, kept in" in capsys.readouterr().out


@needs_model
def test_a_one_shot_tool_call_answers_by_words_and_leaves_the_embedding_to_a_worker(tmp_path: Path) -> None:
    """More passages than a search embeds itself, on a fresh home: the command answers by words and exits
    without embedding them all (it waited for every passage, 91 s on a 76-page site, issue 35), saying so;
    `atlas dataset index` (as a worker at start) then embeds and keeps them."""
    import os
    import subprocess
    import sys

    data = make_dataset(tmp_path / "data")
    env = {
        **os.environ,
        "ATLAS_HOME": str(tmp_path / "home"),
        "ATLAS_DATA": str(data),
        "ATLAS_SEMANTIC": "on",
        "REDIS_URL": "redis://127.0.0.1:9/0",
    }
    done = subprocess.run(
        [sys.executable, "-m", "atlas.cli.main", "tool", "search_docs", '{"query": "retry backoff", "k": 2}'],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and "retries-and-backoff" in done.stdout, done.stderr
    assert "docs search ranked by words" in done.stderr and "atlas dataset index" in done.stderr
    kept, wanted = _kept_and_wanted(data, tmp_path / "home")
    assert kept < wanted and wanted > 12
    indexed = subprocess.run(
        [sys.executable, "-m", "atlas.cli.main", "dataset", "index"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert indexed.returncode == 0, indexed.stderr
    assert _kept_and_wanted(data, tmp_path / "home")[0] == wanted
    again = subprocess.run(
        [sys.executable, "-m", "atlas.cli.main", "tool", "search_docs", '{"query": "retry backoff", "k": 2}'],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0 and "retries-and-backoff" in again.stdout and "ranked by words" not in again.stderr
