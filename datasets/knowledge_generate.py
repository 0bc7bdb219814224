"""Deterministic writer of the Orbit demo's pull requests, releases, discussions and repo.json.

The material is hand-written in `datasets.orbit_material.knowledge`; this module numbers the pull
requests and discussions after the issues (GitHub numbers them in one sequence), resolves `#[key]`
and `#<pr:N>` references, and records the source tree under `code/` at a commit sha derived from
its blob shas, so the same tree always gives the same permalinks.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

from datasets.knowledge_files import CODE, DISCUSSIONS, PULLS, RELEASES, REPO, code_files
from datasets.orbit_material import knowledge as material

REPO_URL = "https://github.com/orbit-jobs/orbit"
DEMO_CODE = Path(__file__).resolve().parent / "orbit" / CODE  # the hand-written tree, committed as it is
_ISSUE_REF = re.compile(r"#\[([a-z0-9-]+)\]")
_PR_REF = re.compile(r"#<pr:(\d+)>")


def tree_commit(root: Path) -> str:
    """A stand-in commit sha for the tree: the sha1 of its paths and blob shas."""
    digest = hashlib.sha1()
    for item in code_files(root):
        digest.update(f"{item.path}\0{item.sha}\n".encode())
    return digest.hexdigest()


def records(issues: dict[str, int]) -> dict[Path, list[dict[str, Any]]]:
    """The records of each knowledge file, in the order they are written; `issues`: each spec key's number."""
    first = max(issues.values()) + 1
    pulls = {n: first + n - 1 for n in range(1, len(material.PULLS) + 1)}

    def link(text: str) -> str:
        text = _ISSUE_REF.sub(lambda m: f"#{issues[m.group(1)]}", text)
        return _PR_REF.sub(lambda m: f"#{pulls[int(m.group(1))]}", text).strip()

    out_pulls = [
        {
            "number": pulls[n],
            "title": p.title,
            "body": link(p.body),
            "author": p.author,
            "state": "merged" if p.merged else "open",
            "created_at": p.created,
            "merged_at": p.merged,
            "closes": [issues[key] for key in p.closes],
            "files": list(p.files),
            "url": f"{REPO_URL}/pull/{pulls[n]}",
        }
        for n, p in enumerate(material.PULLS, start=1)
    ]
    out_releases = [
        {
            "tag": r.tag,
            "name": f"Orbit {r.tag.lstrip('v')}",
            "published_at": r.published,
            "author": r.author,
            "body": link(r.notes),
            "url": f"{REPO_URL}/releases/tag/{r.tag}",
        }
        for r in material.RELEASES
    ]
    start = first + len(material.PULLS)
    out_discussions = [
        {
            "number": start + i,
            "title": d.title,
            "category": d.category,
            "author": d.author,
            "created_at": d.created,
            "body": link(d.body),
            "answer": _reply(d.answer, link) if d.answer else None,
            "replies": [_reply(r, link) for r in d.replies],
            "url": f"{REPO_URL}/discussions/{start + i}",
        }
        for i, d in enumerate(material.DISCUSSIONS)
    ]
    return {PULLS: out_pulls, RELEASES: out_releases, DISCUSSIONS: out_discussions}


def _reply(reply: material.Reply, link: Any) -> dict[str, str]:
    return {"author": reply.author, "created_at": reply.at, "body": link(reply.body)}


def write(data_dir: Path, issues: dict[str, int]) -> None:
    """Write the knowledge files into `data_dir` (and copy the source tree there when it is not the bundled
    demo); `issues` numbers the issues they cite (datasets.generate.issue_numbers)."""
    data_dir = Path(data_dir)
    if (data_dir / CODE).resolve() != DEMO_CODE:
        shutil.copytree(DEMO_CODE, data_dir / CODE, dirs_exist_ok=True, symlinks=True)
    for path, rows in records(issues).items():
        (data_dir / path).parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(row, ensure_ascii=False, sort_keys=True) for row in rows]
        (data_dir / path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    repo = {"url": REPO_URL, "branch": "main", "commit": tree_commit(data_dir / CODE)}
    (data_dir / REPO).write_text(json.dumps(repo, sort_keys=True) + "\n", encoding="utf-8")
