"""The default branch's code into `code/`, by blob sha, and `knowledge/repo.json` with the synced commit.

The head commit is asked conditionally (its ETag): a 304 means the branch did not move and costs nothing.
Otherwise the commit's tree is read recursively (folder by folder when GitHub cuts it short), and only
blobs whose sha is new are fetched, so an unchanged file is never fetched twice. A tree entry is data
from outside: only regular files (mode 100644 or 100755) with a plain relative path are written, never
a symlink or submodule, never outside `code/`; vendored, generated, minified, binary and files over
MAX_FILE_BYTES are left out (datasets/knowledge_files.py). repo.json is written last: the knowledge index
re-indexes the files whose sha changed when it does (datasets/knowledge_index.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from atlas.github_client import READ_CONTENTS
from datasets.github.budget import minified
from datasets.github.docs import _blob_text, _tree
from datasets.github.fetch import Fetcher
from datasets.github.store import Store
from datasets.knowledge_files import CODE, MAX_FILE_BYTES, REPO, SKIPPED_DIRS, SKIPPED_NAME

FILES = "code_files"  # store key: {path: [blob sha, kept]} of the last complete sync
REGULAR = ("100644", "100755")


def sync_code(
    fetch: Fetcher, store: Store, owner: str, name: str, paths: tuple[str, ...], web_url: str
) -> tuple[int, int]:
    """Bring code/ up to date with the default branch's head; returns (written, removed)."""
    branch = store.get("default_branch")
    if not paths or not branch:
        return 0, 0
    gh = fetch.client
    key = f"repos/{owner}/{name}/commits/{branch}"
    head = fetch.get(
        key,
        lambda h: gh.rest.repos.get_commit(owner, name, branch, headers=h),
        doing="read the head commit of",
        needs=READ_CONTENTS,
    )
    if head.not_modified:
        return 0, 0
    commit, tree_sha = str(head.data["sha"]), str(head.data["commit"]["tree"]["sha"])
    wanted, complete = _blobs(fetch, owner, name, tree_sha, paths)
    docs = [str(r).strip("/") + "/" for r in store.get("docs_roots") or []]
    wanted = {p: sha for p, sha in wanted.items() if not p.startswith(tuple(docs))}  # the docs sync has those blobs
    known: dict[str, list[Any]] = store.get(FILES) or {}
    root = store.folder / CODE
    written = removed = 0
    spent = False
    due = [(path, sha) for path, sha in wanted.items() if known.get(path, [None])[0] != sha]
    for done, (path, sha) in enumerate(due):
        if not fetch.affordable():  # the rest next time: the head's ETag is not kept, so the tree is read again
            fetch.budget.spent_note("code files", len(due) - done)
            spent = True
            break
        text = _blob_text(fetch, owner, name, sha, path)
        target = _target(root, path)
        if text is not None and minified(text):
            fetch.budget.note(f"code {path} left out: minified (one line of {len(text) // 1024} KiB)")
            text = None
        if text is None or target is None:
            known[path] = [sha, False]  # remembered: an unchanged skipped file is not fetched again
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        known[path] = [sha, True]
        written += 1
    if complete:  # a file missing from a partial answer may still be there: delete only on a complete one
        for path in [p for p in known if p not in wanted]:
            target = _target(root, path)
            if known.pop(path)[1] and target is not None:
                target.unlink(missing_ok=True)
                removed += 1
    store.put(FILES, known)
    (store.folder / REPO).parent.mkdir(parents=True, exist_ok=True)
    (store.folder / REPO).write_text(
        json.dumps({"url": f"{web_url}/{owner}/{name}", "commit": commit, "branch": branch}, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    if complete and not spent:
        store.put_etag(key, head.etag)
    elif not complete:
        fetch.progress.note("code: GitHub cut the file listing short; nothing was removed")
    return written, removed


def _blobs(fetch: Fetcher, owner: str, name: str, tree_sha: str, paths: tuple[str, ...]) -> tuple[dict[str, str], bool]:
    """{path: blob sha} of the files to sync, and whether the listing was complete."""
    whole = _tree(fetch, owner, name, tree_sha, recursive=True)
    entries, complete = list(whole.get("tree") or []), not whole.get("truncated")
    if not complete:  # walk the folders one tree at a time
        entries, complete, folders = [], True, [("", tree_sha)]
        while folders:
            folder, sha = folders.pop()
            listing = _tree(fetch, owner, name, sha, recursive=False)
            complete = complete and not listing.get("truncated")
            for entry in listing.get("tree") or []:
                entry = {**entry, "path": f"{folder}/{entry.get('path')}" if folder else str(entry.get("path"))}
                entries.append(entry)
                if entry.get("type") == "tree" and not _skipped(str(entry["path"]), folder=True):
                    folders.append((str(entry["path"]), str(entry["sha"])))
    found = {}
    for entry in entries:
        path = str(entry.get("path") or "")
        if (
            entry.get("type") != "blob"
            or str(entry.get("mode")) not in REGULAR
            or int(entry.get("size") or 0) > MAX_FILE_BYTES
        ):
            continue
        if _skipped(path, folder=False) or SKIPPED_NAME.search(path.rsplit("/", 1)[-1].lower()):
            continue
        if any(not p or path == p or path.startswith(p + "/") for p in paths):
            found[path] = str(entry.get("sha"))
    return found, complete


def _skipped(path: str, *, folder: bool) -> bool:
    """Under (or, for a folder, itself) a vendored or generated folder such as node_modules/ or dist/."""
    parts = path.split("/")
    return any(part in SKIPPED_DIRS for part in (parts if folder else parts[:-1]))


def _target(root: Path, path: str) -> Path | None:
    """Where `path` goes under `root`, or None for a path that is not plainly inside it."""
    parts = path.split("/")
    if not path or any(part in ("", ".", "..") for part in parts) or "\\" in path or "\0" in path:
        return None
    target = root.joinpath(*parts)
    real_root = os.path.realpath(root)
    if (
        os.path.commonpath([real_root, os.path.realpath(target.parent if target.parent.exists() else root)])
        != real_root
    ):
        return None
    return target
