"""A repository's Markdown docs into `docs/<doc_id>.md`, fetching only blobs whose sha changed.

The git trees API lists every file of the default branch with its blob sha in one request
(conditional on its ETag: an unchanged branch costs nothing). Files under the docs roots ending in
`.md` are compared with the shas written last time; only new or changed blobs are downloaded, and
docs whose file is gone are removed. Nested folders become flat doc ids (`guides/setup.md` ->
`guides-setup`). The title is the front matter's `title`, else the first `# ` heading, else the file
name; each written doc gets front matter with that title and its `url` on GitHub. Binary or
undecodable files are skipped with a warning.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from pathlib import PurePosixPath
from typing import Any

from atlas.github_client import READ_CONTENTS
from datasets.github_fetch import Fetcher
from datasets.github_store import Store

log = logging.getLogger("atlas.github.sync")
DOC_SUFFIXES = (".md", ".markdown")
FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)


def doc_id(path: str, root: str) -> str:
    """A flat doc id for a file under a docs root, matching the tools' `[a-z0-9][a-z0-9_-]*`."""
    rel = PurePosixPath(path).relative_to(root) if root else PurePosixPath(path)
    stem = str(rel.with_suffix("")).lower()
    cleaned = re.sub(r"[^a-z0-9_]+", "-", stem).strip("-_")
    return cleaned or "doc"


def title_of(text: str, path: str) -> str:
    """Front matter `title`, else the first `# ` heading, else the file name."""
    match = FRONT.match(text)
    if match:
        for line in match.group(1).splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() == "title" and value.strip().strip("\"'"):
                return value.strip().strip("\"'")
        text = text[match.end():]
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and line.startswith("# "):
            return line[2:].strip()
    return PurePosixPath(path).stem.replace("-", " ").replace("_", " ")


def render(text: str, path: str, url: str) -> str:
    """The doc as the tools read it: our front matter (title, url), then the body without its own."""
    title = title_of(text, path)
    match = FRONT.match(text)
    body = text[match.end():] if match else text
    safe = title.replace("\n", " ")
    return f"---\ntitle: {safe}\nurl: {url}\n---\n{body}"


def sync_docs(fetch: Fetcher, store: Store, owner: str, name: str, roots: list[str], web_url: str) -> tuple[int, int]:
    """Bring docs/ up to date with the default branch; returns (written, removed)."""
    gh = fetch.client
    repo = fetch.get(f"repos/{owner}/{name}", lambda h: gh.rest.repos.get(owner, name, headers=h),
                     doing="read", needs=READ_CONTENTS)
    branch = repo.data["default_branch"] if not repo.not_modified else store.get("default_branch")
    if not repo.not_modified:
        store.put_etag(f"repos/{owner}/{name}", repo.etag)
        store.put("default_branch", branch)
        store.put("open_issues_count", repo.data.get("open_issues_count"))  # GitHub's own count, for the summary
    if not branch:
        return 0, 0
    tree_key = f"repos/{owner}/{name}/git/trees/{branch}?recursive=1"
    tree = fetch.get(tree_key, lambda h: gh.rest.git.get_tree(owner, name, branch, recursive="1", headers=h),
                     doing="list the files of", needs=READ_CONTENTS)
    if tree.not_modified:
        return 0, 0
    wanted = _doc_blobs(tree.data.get("tree") or [], roots)
    known = store.docs()
    docs_dir = store.folder / "docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    written = removed = 0
    for path, (sha, root) in wanted.items():
        if known.get(path, ("", ""))[0] == sha:
            continue
        text = _blob_text(fetch, owner, name, sha, path)
        ident = doc_id(path, root)
        if text is None:  # remembered as skipped (no doc id), so an unchanged bad file is not fetched again
            if known.get(path, ("", ""))[1]:
                (docs_dir / f"{known[path][1]}.md").unlink(missing_ok=True)
            store.put_doc(path, sha, "")
            continue
        url = f"{web_url}/{owner}/{name}/blob/{branch}/{path}"
        (docs_dir / f"{ident}.md").write_text(render(text, path, url), encoding="utf-8")
        store.put_doc(path, sha, ident)
        written += 1
    for path, (_, ident) in known.items():
        if path not in wanted:
            if ident:
                (docs_dir / f"{ident}.md").unlink(missing_ok=True)
            store.delete_doc(path)
            removed += 1
    store.put_etag(tree_key, tree.etag)
    return written, removed


def _doc_blobs(entries: list[dict[str, Any]], roots: list[str]) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for entry in entries:
        path = str(entry.get("path") or "")
        if entry.get("type") != "blob" or not path.lower().endswith(DOC_SUFFIXES):
            continue
        for root in roots:
            if not root or path.startswith(root.rstrip("/") + "/"):
                found[path] = (str(entry.get("sha")), root.rstrip("/"))
                break
    return found


def _blob_text(fetch: Fetcher, owner: str, name: str, sha: str, path: str) -> str | None:
    gh = fetch.client
    page = fetch.get(f"repos/{owner}/{name}/git/blobs/{sha}", lambda h: gh.rest.git.get_blob(owner, name, sha, headers=h),
                     doing="read docs of", needs=READ_CONTENTS)
    if page.not_modified:  # blob ETags are never stored, so this does not happen; be safe anyway
        return None
    try:
        raw = base64.b64decode(page.data.get("content") or "") if page.data.get("encoding") == "base64" else \
            str(page.data.get("content") or "").encode()
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        fetch.progress.note(f"skipped {path}: not UTF-8 text")
        log.warning("skipped doc %s: not UTF-8 text", path)
        return None
    if "\x00" in text:
        fetch.progress.note(f"skipped {path}: binary content")
        log.warning("skipped doc %s: binary content", path)
        return None
    return text

