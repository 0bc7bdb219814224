"""A repository's Markdown and reStructuredText (Sphinx) docs into `docs/<doc_id>.md` and `docs/<doc_id>.rst`,
fetching only blobs whose sha changed.

The default branch's top tree is asked conditional on its ETag (an unchanged branch costs nothing);
each docs root's folder is then read recursively in one request, or, when GitHub cuts that answer
short (`truncated: true`), one folder tree at a time. Files under the docs roots ending in `.md` or `.rst` are
compared with the shas written last time; only new or changed blobs are downloaded, and docs whose
file is gone are removed, but only after a complete listing: a partial one deletes nothing. Nested folders become flat
doc ids (`guides/setup.md` -> `guides-setup`). The title is the front matter's `title`, else the first `# ` heading,
else the file name; each written Markdown doc gets front matter with that title and its `url` on GitHub, a
`.rst` page (whose title is its own) a closing comment with the url (`.. atlas-url: URL`, tools/docsearch/pages.py
reads it; reStructuredText has no front matter and a leading comment would hide its `:orphan:`). Binary or
undecodable files are skipped with a warning; symlinks and docs over MAX_DOC_BYTES are left out, and so
are the blobs past the sync's share of the rate limit (datasets/github/budget.py), said in the report and
fetched by the next sync (the top tree's ETag is kept only once every changed doc was read).
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from atlas.github_client import READ_CONTENTS
from datasets.github.budget import MAX_DOC_BYTES
from datasets.github.fetch import Fetcher
from datasets.github.store import Store

log = logging.getLogger("atlas.github.sync")
DOC_SUFFIXES = (".md", ".markdown", ".rst")
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
        text = text[match.end() :]
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and line.startswith("# "):
            return line[2:].strip()
    return PurePosixPath(path).stem.replace("-", " ").replace("_", " ")


def file_name(ident: str, path: str) -> str:
    """The name a doc is written under: a Sphinx page stays reStructuredText (tools/docsearch/rst.py reads it)."""
    return f"{ident}.rst" if path.lower().endswith(".rst") else f"{ident}.md"


def render(text: str, path: str, url: str) -> str:
    """The doc as the tools read it: our front matter (title, url), then the body without its own; a `.rst`
    page as it is, with its url in a closing comment."""
    if path.lower().endswith(".rst"):
        return f"{text.rstrip()}\n\n.. atlas-url: {url}\n"
    title = title_of(text, path)
    match = FRONT.match(text)
    body = text[match.end() :] if match else text
    safe = title.replace("\n", " ")
    return f"---\ntitle: {safe}\nurl: {url}\n---\n{body}"


def sync_docs(fetch: Fetcher, store: Store, owner: str, name: str, roots: list[str], web_url: str) -> tuple[int, int]:
    """Bring docs/ up to date with the default branch; returns (written, removed)."""
    gh = fetch.client
    repo = fetch.get(
        f"repos/{owner}/{name}", lambda h: gh.rest.repos.get(owner, name, headers=h), doing="read", needs=READ_CONTENTS
    )
    branch = repo.data["default_branch"] if not repo.not_modified else store.get("default_branch")
    if not repo.not_modified:
        store.put_etag(f"repos/{owner}/{name}", repo.etag)
        store.put("default_branch", branch)
        store.put("open_issues_count", repo.data.get("open_issues_count"))  # GitHub's own count, for the summary
        store.put("has_discussions", repo.data.get("has_discussions"))  # off: no discussions query (#27)
    if not branch:
        return 0, 0
    root_key = f"repos/{owner}/{name}/git/trees/{branch}"
    top = fetch.get(
        root_key,
        lambda h: gh.rest.git.get_tree(owner, name, branch, headers=h),
        doing="list the files of",
        needs=READ_CONTENTS,
    )
    if top.not_modified:  # the root tree's sha covers every file below it: nothing changed
        return 0, 0
    wanted: dict[str, tuple[str, str]] = {}
    complete = True
    for root in roots:
        found, whole = _root_blobs(fetch, owner, name, top.data, root.strip("/"))
        wanted.update(found)
        complete = complete and whole
    known = store.docs()
    docs_dir = store.folder / "docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    written = removed = 0
    due = [(path, sha, root) for path, (sha, root) in wanted.items() if known.get(path, ("", ""))[0] != sha]
    for done, (path, sha, root) in enumerate(due):
        if not fetch.affordable():  # the rest next time: the root tree's ETag is not kept, so it is listed again
            fetch.budget.spent_note("docs", len(due) - done)
            return written, removed
        text = _blob_text(fetch, owner, name, sha, path)
        ident = doc_id(path, root)
        if text is None:  # remembered as skipped (no doc id), so an unchanged bad file is not fetched again
            if known.get(path, ("", ""))[1]:
                (docs_dir / file_name(known[path][1], path)).unlink(missing_ok=True)
            store.put_doc(path, sha, "")
            continue
        url = f"{web_url}/{owner}/{name}/blob/{branch}/{path}"
        (docs_dir / file_name(ident, path)).write_text(render(text, path, url), encoding="utf-8")
        store.put_doc(path, sha, ident)
        written += 1
    if not complete:  # a doc missing from a partial answer may still be there: delete nothing, ask again next time
        fetch.progress.note("docs: GitHub cut the file listing short; nothing was removed")
        log.warning("git tree of %s/%s was truncated; no docs removed", owner, name)
        return written, removed
    for path, (_, ident) in known.items():
        if path not in wanted:
            if ident:
                (docs_dir / file_name(ident, path)).unlink(missing_ok=True)
            store.delete_doc(path)
            removed += 1
    store.put_etag(root_key, top.etag)
    return written, removed


def _root_blobs(
    fetch: Fetcher, owner: str, name: str, top: dict[str, Any], root: str
) -> tuple[dict[str, tuple[str, str]], bool]:
    """The doc blobs under one docs root, and whether the listing was complete.

    The root's folder is found entry by entry from the repository's top tree, then read recursively in one
    request; when GitHub cuts that answer short (`truncated`), its folders are walked one tree at a time.
    """
    tree, complete = top, not top.get("truncated")
    for part in [p for p in root.split("/") if p]:
        entry = next((e for e in tree.get("tree") or [] if e.get("path") == part and e.get("type") == "tree"), None)
        if entry is None:  # not in a complete listing: the folder does not exist; in a cut one, it may
            return {}, complete
        tree = _tree(fetch, owner, name, str(entry["sha"]), recursive=False)
        complete = not tree.get("truncated")
    whole = _tree(fetch, owner, name, str(tree["sha"]), recursive=True)
    if not whole.get("truncated"):
        return _doc_blobs(_under(whole.get("tree") or [], root), [root], fetch.budget.note), True
    found: dict[str, tuple[str, str]] = {}
    complete, folders = True, [(root, str(tree["sha"]))]
    while folders:
        folder, sha = folders.pop()
        listing = _tree(fetch, owner, name, sha, recursive=False)
        complete = complete and not listing.get("truncated")
        entries = _under(listing.get("tree") or [], folder)
        found.update(_doc_blobs(entries, [root], fetch.budget.note))
        folders += [(str(e["path"]), str(e["sha"])) for e in entries if e.get("type") == "tree"]
    return found, complete


def _tree(fetch: Fetcher, owner: str, name: str, sha: str, *, recursive: bool) -> dict[str, Any]:
    """One git tree by sha (never changes, so never conditional)."""
    gh = fetch.client
    page = fetch.get(
        f"repos/{owner}/{name}/git/trees/{sha}" + ("?recursive=1" if recursive else ""),
        (lambda h: gh.rest.git.get_tree(owner, name, sha, recursive="1", headers=h))
        if recursive
        else (lambda h: gh.rest.git.get_tree(owner, name, sha, headers=h)),
        doing="list the files of",
        needs=READ_CONTENTS,
    )
    return dict(page.data or {})


def _under(entries: list[dict[str, Any]], folder: str) -> list[dict[str, Any]]:
    """Tree entries with paths from the repository's root (GitHub gives them relative to the tree asked for)."""
    prefix = f"{folder}/" if folder else ""
    return [{**e, "path": prefix + str(e.get("path") or "")} for e in entries]


def _doc_blobs(
    entries: list[dict[str, Any]], roots: list[str], note: Callable[[str], None]
) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for entry in entries:
        path = str(entry.get("path") or "")
        if entry.get("type") != "blob" or not path.lower().endswith(DOC_SUFFIXES):
            continue
        if str(entry.get("mode") or "100644") not in ("100644", "100755"):  # a symlink (120000) points anywhere
            note(f"doc {path} left out: a symlink, not a file")
            continue
        if int(entry.get("size") or 0) > MAX_DOC_BYTES:
            note(
                f"doc {path} left out: {int(entry['size']) // 1024} KiB, "
                f"over the {MAX_DOC_BYTES // 1024} KiB a doc may have"
            )
            continue
        for root in roots:
            if not root or path.startswith(root.rstrip("/") + "/"):
                found[path] = (str(entry.get("sha")), root.rstrip("/"))
                break
    return found


def _blob_text(fetch: Fetcher, owner: str, name: str, sha: str, path: str) -> str | None:
    gh = fetch.client
    page = fetch.get(
        f"repos/{owner}/{name}/git/blobs/{sha}",
        lambda h: gh.rest.git.get_blob(owner, name, sha, headers=h),
        doing="read docs of",
        needs=READ_CONTENTS,
    )
    if page.not_modified:  # blob ETags are never stored, so this does not happen; be safe anyway
        return None
    try:
        raw = (
            base64.b64decode(page.data.get("content") or "")
            if page.data.get("encoding") == "base64"
            else str(page.data.get("content") or "").encode()
        )
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
