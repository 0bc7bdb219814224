"""open_corpus caches per folder and reloads on change; run_tool_cli prints what the model reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets.tracker_db import DatasetError
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues
from tools import open_corpus, run_tool_cli


def test_cached_per_folder_and_reloaded_on_change(tmp_path: Path) -> None:
    a, b = make_dataset(tmp_path / "a"), make_dataset(tmp_path / "b")
    first = open_corpus(a)
    assert open_corpus(a) is first and open_corpus(b) is not first
    (a / "docs" / "new-page.md").write_text("---\ntitle: New page\n---\n# New page\n\n## Quasar\n\nquasar text\n")
    second = open_corpus(a)
    assert second is not first and "new-page" in second.docs.pages
    write_issues(a, ISSUES[:3])
    assert open_corpus(a).issues.id_range() == (1, 3, 3)


def test_run_tool_cli_prints_model_text(tmp_path: Path) -> None:
    root = make_dataset(tmp_path)
    assert run_tool_cli(root, "calculate", '{"expression": "6*7"}').text == "6*7 = 42"
    assert run_tool_cli(root, "nope", "{}").text.startswith("Error: Unknown tool 'nope'.")
    text = run_tool_cli(root, "get_issue", json.dumps({"issue_id": 1, "include": ["labels"]})).text
    assert text.startswith("#1 Cron job ran twice on DST change\n")


def test_missing_data_folder(tmp_path: Path) -> None:
    with pytest.raises(DatasetError):
        run_tool_cli(tmp_path, "calculate", '{"expression": "1"}')


def test_reloaded_when_a_doc_is_edited_or_removed_and_not_for_other_files(tmp_path: Path) -> None:
    """The change check looks at `docs/*.md` and the issues export only (tools/corpus.py `_fingerprint`)."""
    root = make_dataset(tmp_path / "a")
    first = open_corpus(root)
    (root / "docs" / "notes.txt").write_text("not a doc")
    (root / "docs" / ".notes.md.swp").write_text("an editor's swap file")
    assert open_corpus(root) is first
    page = sorted((root / "docs").glob("*.md"))[0]
    page.write_text(page.read_text() + "\n## Zephyr\n\nzephyr text\n")
    edited = open_corpus(root)
    assert edited is not first and any("zephyr" in s.text.lower() for s in edited.docs.pages[page.stem].sections)
    page.unlink()
    assert page.stem not in open_corpus(root).docs.pages
