"""Where an original closed as completed was fixed (issue 36 item 5): the merged pull request that closes it, and
the release that shipped it, from what the sync already keeps (knowledge/pulls.jsonl: a PR closes #N when GitHub
linked it or its description says "fixes #N"; knowledge/releases.jsonl). No GitHub call is made: a card on a new
issue costs nothing more, and a repository with no synced pull requests (or an issue closed by hand, with no PR)
just keeps the old sentence ("it may already be fixed there"). A knowledge index that cannot be read is the same
as none: the card is never held up by it (errors are values).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from atlas.errors import AtlasError
from tools.corpus import open_corpus
from tools.knowledge_store import Item, KnowledgeStore

log = logging.getLogger("atlas.new_issues")


def where(data_dir: Path, home: Path | None, number: int) -> dict[str, Any] | None:
    """{"pull", "title", "url", "release", "release_url", "named"} for #number's fix; None when nothing names one.
    `release` is None when no release was published after the merge; `named` says the release's notes name the PR
    or the issue (otherwise it is the first release published after the merge)."""
    try:
        store = open_corpus(data_dir, home).knowledge
        return fix_in(store, number) if store is not None else None
    except (AtlasError, OSError, sqlite3.Error, ValueError) as exc:  # DatasetError: nothing synced yet
        log.warning("where #%s was fixed is not known: %s", number, exc)
        return None


def fix_in(store: KnowledgeStore, number: int) -> dict[str, Any] | None:
    """The first merged pull request that closes #number, and its release, as `where` says."""
    fixing, _ = store.fixes_of(number)
    merged = [p for p in fixing if p.extra.get("merged_at")]
    if not merged:
        return None
    pull = merged[0]
    release, named = _release(store.releases(), pull, number)
    return {
        "pull": pull.number,
        "title": pull.title,
        "url": pull.url,
        "release": release.tag if release is not None else None,
        "release_url": release.url if release is not None else None,
        "named": named,
    }


def _release(releases: list[Item], pull: Item, issue: int) -> tuple[Item | None, bool]:
    """The first release whose notes name the PR or the issue; else the first published after the merge."""
    named = [r for r in releases if pull.number in r.mentions or issue in r.mentions]
    if named:
        return named[0], True
    merged = str(pull.extra.get("merged_at") or "")
    later = [r for r in releases if (r.date or "") > merged]
    return (later[0], False) if later else (None, False)
