"""Where a data folder keeps its knowledge beyond docs and issues, and which code files count.

    knowledge/repo.json          {"url": web URL of the repository, "commit": the synced sha, "branch"}
    knowledge/pulls.jsonl        one pull request a line
    knowledge/releases.jsonl     one release a line
    knowledge/discussions.jsonl  one discussion a line
    code/                        the default branch's text files at that commit

Code is data from outside: `code_files` never follows a symlink (a link out of the tree is not
read, nor a link inside it: the file it points to is listed under its own path), and skips what a
reader would not search: vendored, generated and minified files, binaries, files over MAX_FILE_BYTES.
It is `code_stats` (one lstat a file, nothing read) then `read_code`, so an index update can skip reading
the files whose stat it already holds (datasets/knowledge_rows.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KNOWLEDGE = Path("knowledge")
REPO = KNOWLEDGE / "repo.json"
PULLS = KNOWLEDGE / "pulls.jsonl"
RELEASES = KNOWLEDGE / "releases.jsonl"
DISCUSSIONS = KNOWLEDGE / "discussions.jsonl"
CODE = Path("code")
MAX_FILE_BYTES = 200 * 1024
SKIPPED_DIRS = frozenset({".git", "node_modules", "vendor", "third_party", "dist", "build", "__pycache__", ".venv"})
SKIPPED_NAME = re.compile(
    r"(\.min\.(js|css)$|\.(lock|map|png|jpe?g|gif|ico|pdf|zip|gz|whl|so|pyc)$|^package-lock\.json$)"
)
GENERATED = re.compile(rb"(?i)(@generated|do not edit|automatically generated)")


@dataclass(frozen=True)
class CodeFile:
    """One text file of the synced tree: its path inside the tree (POSIX), its git blob sha and text."""

    path: str
    sha: str
    text: str


def blob_sha(content: bytes) -> str:
    """Git's (and GitHub's) blob sha of `content`: an unchanged file keeps it across commits."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass(frozen=True)
class Stat:
    """What says a file may have changed without reading it: size, mtime, ctime and inode (as git's index keeps)."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int

    def key(self) -> str:
        """As the index stores it, per file."""
        return f"{self.size}:{self.mtime_ns}:{self.ctime_ns}:{self.inode}"

    def newest_ns(self) -> int:
        return max(self.mtime_ns, self.ctime_ns)


def file_stat(full: str) -> Stat | None:
    """The file's own stat (not a link's target); None when it is gone. The one stat of a code file per update."""
    try:
        st = os.lstat(full)
    except OSError:
        return None
    return Stat(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def code_stats(root: Path) -> Iterator[tuple[str, str, Stat]]:
    """(path inside the tree, full path, stat) of each candidate file in path order, nothing read yet: symlinks,
    skipped folders and names, files over MAX_FILE_BYTES are left out; what is text is `read_code`'s to say."""
    base = os.path.realpath(root)
    if not os.path.isdir(base):
        return
    for folder, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not os.path.islink(os.path.join(folder, d)))
        inside = os.path.relpath(folder, base).replace(
            os.sep, "/"
        )  # once a folder: per file it was a third of the walk
        prefix = "" if inside == "." else inside + "/"
        for name in sorted(files):
            if SKIPPED_NAME.search(name.lower()):
                continue
            full = os.path.join(folder, name)
            found = file_stat(full)  # lstat: a symlink is not a regular file, so it is left out here
            if found is not None and found.size <= MAX_FILE_BYTES:
                yield prefix + name, full, found


def code_files(root: Path) -> Iterator[CodeFile]:
    """The tree's searchable text files in path order; symlinks, skipped folders and non-text files are left out."""
    for path, full, _ in code_stats(root):
        item = read_code(path, full)
        if item is not None:
            yield item


def read_code(path: str, full: str) -> CodeFile | None:
    """The file as indexed, or None when it is not searchable text (binary, generated, not UTF-8, too big, gone)."""
    try:
        with open(full, "rb", opener=_no_follow) as handle:
            content = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(content) > MAX_FILE_BYTES or b"\0" in content[:8192] or GENERATED.search(content[:512]):
        return None
    try:
        return CodeFile(path, blob_sha(content), content.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def _no_follow(full: str, flags: int) -> int:
    """Open without following a symlink put in its place since it was listed."""
    return os.open(full, flags | os.O_NOFOLLOW)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL file; a missing file is no records (that source is off or not synced)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines if line.strip()]


def write_jsonl(target: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Rewrite `target` whole with one JSON record a line, through a temporary file renamed into place (readers
    never see half a file); returns how many were written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".tmp", dir=target.parent)
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, sort_keys=True) + "\n")
                count += 1
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count
