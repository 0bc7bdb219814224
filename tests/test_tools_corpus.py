"""open_corpus caches per folder and reloads on change; run_tool_cli prints what the model reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datasets.tracker_db import DatasetError
from tests.tools_dataset import ISSUES, make_dataset, write_issues
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
