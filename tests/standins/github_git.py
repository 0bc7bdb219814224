"""The stand-in repository's git objects as GitHub's git database API serves them: trees (whole or recursive, cut
at a limit with `truncated: true`), the head commit and blobs, each sha following its content as git's does."""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any

from tests.standins.github_spec import skeleton


@functools.lru_cache(maxsize=65_536)
def blob_sha(content: bytes) -> str:
    """Git's blob sha (remembered: trees and blobs are asked for again and again of a large repository)."""
    return hashlib.sha1(b"blob %d\x00" % len(content) + content).hexdigest()


class GitObjects:
    """Trees, the head commit and blobs over `files` (a mixin of `Repo`, which holds the state)."""

    files: dict[str, bytes]
    modes: dict[str, str]
    blobs: dict[str, bytes]
    default_branch: str

    def url(self, tail: str = "") -> str:
        raise NotImplementedError

    def html(self, tail: str = "") -> str:
        raise NotImplementedError

    def tree(self, ref: str, *, recursive: bool = False, limit: int | None = None) -> dict[str, Any] | None:
        """The git tree at `ref` (the default branch or a folder's tree sha) as GitHub answers it: paths relative
        to that tree, sorted; beyond `limit` entries GitHub cuts the answer and says `truncated: true`."""
        folder = "" if ref == self.default_branch else self._folders().get(ref)
        if folder is None:
            return None
        prefix = f"{folder}/" if folder else ""
        entries = []
        for path, data in sorted(self.files.items()):
            rel = path[len(prefix) :] if path.startswith(prefix) else None
            if rel and (recursive or "/" not in rel):
                entries.append(
                    {
                        "path": rel,
                        "mode": self.modes.get(path, "100644"),
                        "type": "blob",
                        "sha": blob_sha(data),
                        "size": len(data),
                        "url": self.url(f"/git/blobs/{blob_sha(data)}"),
                    }
                )
        for sha, path in self._folders().items():
            rel = path[len(prefix) :] if path.startswith(prefix) else None
            if path and rel and (recursive or "/" not in rel):
                entries.append(
                    {"path": rel, "mode": "040000", "type": "tree", "sha": sha, "url": self.url(f"/git/trees/{sha}")}
                )
        entries.sort(key=lambda e: e["path"])
        truncated = limit is not None and len(entries) > limit
        return {
            "sha": self._folder_sha(folder),
            "url": self.url(f"/git/trees/{self._folder_sha(folder)}"),
            "tree": entries[:limit] if truncated else entries,
            "truncated": truncated,
        }

    def _folders(self) -> dict[str, str]:
        """Every folder (the root is "") by its tree sha, which changes with anything under it, as git's does."""
        paths = {""} | {p.rsplit("/", 1)[0] for p in self.files if "/" in p}
        while True:  # every ancestor of a folder is a folder
            more = {f.rsplit("/", 1)[0] for f in paths if "/" in f} - paths
            if not more:
                break
            paths |= more
        return {self._folder_sha(f): f for f in paths}

    def _folder_sha(self, folder: str) -> str:
        prefix = f"{folder}/" if folder else ""
        content = sorted((p, blob_sha(d)) for p, d in self.files.items() if p.startswith(prefix))
        return hashlib.sha1(repr((folder, content)).encode()).hexdigest()

    def commit(self, ref: str) -> dict[str, Any] | None:
        """The head commit of the default branch (by name or by its sha): its sha follows the root tree's."""
        tree = self._folder_sha("")
        sha = hashlib.sha1(f"commit {tree}".encode()).hexdigest()
        if ref not in (self.default_branch, sha):
            return None
        commit = skeleton("commit")
        commit.update(
            sha=sha,
            node_id=f"C_{sha[:8]}",
            url=self.url(f"/commits/{sha}"),
            html_url=self.html(f"/commit/{sha}"),
            comments_url=self.url(f"/commits/{sha}/comments"),
            parents=[],
            files=[],
        )
        commit["commit"] = {
            **commit["commit"],
            "tree": {"sha": tree, "url": self.url(f"/git/trees/{tree}")},
            "message": "head",
            "url": self.url(f"/git/commits/{sha}"),
        }
        return commit

    def blob(self, sha: str) -> dict[str, Any] | None:
        """A blob by sha, as GitHub serves one (a blob once in the repository stays readable, like git's objects)."""
        data = self.blobs.get(sha)
        if data is None:
            self.blobs.update({blob_sha(d): d for d in self.files.values()})
            data = self.blobs.get(sha)
        if data is None:
            return None
        return {
            "sha": sha,
            "node_id": f"B_{sha[:8]}",
            "size": len(data),
            "url": self.url(f"/git/blobs/{sha}"),
            "content": base64.b64encode(data).decode(),
            "encoding": "base64",
        }
