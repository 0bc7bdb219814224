"""An index update reads only the code files whose stat changed, yet answers as a whole build.

What is read is counted at the one place a code file is opened (`open` in datasets/knowledge_files.py). Outside
the racy case each update runs as if an hour after the files were written (`scan_start` an hour ahead), so no
file is read only for being recent. The racy case is a filesystem whose timestamps tick once an hour (the stat
seam, `file_stat`, rounds them down): a file rewritten with the same size in the tick its stat was taken in has
the same stat, and must be read anyway.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from datasets import knowledge_files, knowledge_index
from datasets.knowledge_files import CODE, REPO
from tests.datasets.test_knowledge_index import dump_of, whole_build

HOUR_NS = 3600 * 10**9
FILES = 30


def source(i: int, value: int) -> str:
    return f"def compute_{i}(x):\n    return x * {value}\n"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A hand-made folder of FILES code files, indexed once; every update from here on runs an hour later."""
    monkeypatch.setattr(knowledge_index, "scan_start", lambda target: time.time_ns() + HOUR_NS, raising=False)
    root = tmp_path / "data"
    (root / CODE / "pkg").mkdir(parents=True)
    for i in range(FILES):
        (root / CODE / "pkg" / f"m{i:02}.py").write_text(source(i, 1))
    touch_repo(root, "a")
    knowledge_index.ensure(root)
    return root


def touch_repo(root: Path, commit: str) -> None:
    (root / REPO).parent.mkdir(parents=True, exist_ok=True)
    (root / REPO).write_text(
        json.dumps({"url": "https://github.com/o/r", "commit": commit * 40})
    )  # last, as a sync does


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The code files the index opens from here on, by name."""
    seen: list[str] = []

    def counting(file: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(os.path.basename(file))
        return open(file, *args, **kwargs)

    monkeypatch.setattr(knowledge_files, "open", counting, raising=False)
    yield seen


def test_an_update_reads_only_the_files_whose_stat_changed_and_answers_as_a_whole_build(
    data: Path, tmp_path: Path, opened: list[str]
) -> None:
    (data / CODE / "pkg" / "m03.py").write_text(source(3, 1000))  # another size
    (data / CODE / "pkg" / "m07.py").unlink()
    (data / CODE / "pkg" / "new.py").write_text(source(99, 2))
    touch_repo(data, "b")
    knowledge_index.ensure(data)
    assert sorted(opened) == ["m03.py", "new.py"]
    assert dump_of(knowledge_index.db_path(data)) == whole_build(data, tmp_path)

    opened.clear()
    touch_repo(data, "c")
    knowledge_index.ensure(data)
    assert opened == []


def test_a_touched_file_is_read_once_and_not_rewritten(data: Path, tmp_path: Path, opened: list[str]) -> None:
    path = data / CODE / "pkg" / "m05.py"
    past = os.stat(path).st_mtime_ns - HOUR_NS
    os.utime(path, ns=(past, past))  # another mtime, the same content
    touch_repo(data, "b")
    knowledge_index.ensure(data)
    assert opened == ["m05.py"]
    opened.clear()
    touch_repo(data, "c")
    knowledge_index.ensure(data)
    assert opened == []  # its new stat was kept
    assert dump_of(knowledge_index.db_path(data)) == whole_build(data, tmp_path)


def test_a_file_rewritten_with_the_same_size_in_the_same_tick_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stat = knowledge_files.file_stat

    def coarse(full: str) -> knowledge_files.Stat | None:
        found = stat(full)
        if found is None:
            return None
        return knowledge_files.Stat(
            found.size, found.mtime_ns // HOUR_NS * HOUR_NS, found.ctime_ns // HOUR_NS * HOUR_NS, found.inode
        )

    monkeypatch.setattr(knowledge_files, "file_stat", coarse, raising=False)
    monkeypatch.setattr(knowledge_index, "file_stat", coarse, raising=False)
    root = tmp_path / "data"
    (root / CODE).mkdir(parents=True)
    path = root / CODE / "a.py"
    path.write_text(source(1, 1))
    touch_repo(root, "a")
    knowledge_index.ensure(root)
    path.write_text(source(1, 2))  # the same size, within the same (hour-long) tick: the same stat
    touch_repo(root, "b")
    knowledge_index.ensure(root)
    assert dump_of(knowledge_index.db_path(root)) == whole_build(root, tmp_path)
    assert "x * 2" in dump_of(knowledge_index.db_path(root))["files"][0][2]
