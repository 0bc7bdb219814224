"""A webhook's one changed issue refreshes the corpus incrementally (issue 38 item 5): searchable at once, the docs
index kept when the issue names none of its identifiers, and every result what a corpus built from scratch gives."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from datasets import tracker_db
from datasets.github import index as github_index
from datasets.github.store import Store
from tests.support.tools_dataset import ISSUES, make_dataset
from tools import corpus as corpora
from tools import open_corpus
from tools.corpus import Corpus
from tools.docsearch.bridge import thread_texts
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import load_pages

ISSUE_QUERIES = ("cron twice", "lease expired", "zeppelin hovercraft", "redis failover", "heartbeat renew")
DOC_QUERIES = ("how do I renew the lease", "heartbeat_seconds", "zeppelin hovercraft", "retry backoff jitter")


def _raw(issue: dict[str, Any], updated: str = "2025-01-01T00:00:00Z") -> dict[str, Any]:
    """One of the tools dataset's issues as GitHub's issue JSON (what a sync or a webhook stores)."""
    return {
        "number": issue["id"],
        "id": 1000 + issue["id"],
        "title": issue["title"],
        "body": issue.get("body") or "",
        "state": issue.get("state") or "open",
        "user": {"login": "someone"},
        "labels": [{"name": name} for name in issue.get("labels") or []],
        "created_at": "2025-01-01T00:00:00Z",
        "updated_at": updated,
        "closed_at": None,
        "html_url": f"https://github.com/acme/lib/issues/{issue['id']}",
    }


def _synced(root: Path) -> Path:
    """A folder as `atlas sync github` leaves it: the tools dataset's docs, its issues in the staging store."""
    folder = make_dataset(root)
    store = Store(folder)
    try:
        with store.batch():
            for issue in ISSUES:
                store.put_issue(_raw(issue))
        store.export()
    finally:
        store.close()
    tracker_db.ensure_db(folder)
    return folder


def _webhook(folder: Path, issue: dict[str, Any]) -> None:
    """An `issues` delivery applied as the webhook job does (datasets/github/index.py)."""
    github_index.apply(folder, lambda store: store.put_issue(_raw(issue, "2026-01-01T00:00:00Z")))


def _results(corpus: Corpus) -> tuple[object, ...]:
    issues = [[(i.id, i.title, i.state) for i in corpus.issues.search(q, None, 10)] for q in ISSUE_QUERIES]
    docs = [[(h.doc_id, h.heading, h.score, h.coverage) for h in corpus.docs.search(q, 5)] for q in DOC_QUERIES]
    return tuple(issues), tuple(docs)


def _from_scratch(folder: Path, tmp: Path) -> Corpus:
    """The corpus of a copy of `folder` whose index is rebuilt from issues.jsonl, opened in no cache."""
    copy = tmp / "fresh"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("index.db*"))
    tracker_db.build(copy)
    docs = DocsIndex(load_pages(copy / "docs"), thread_texts(copy / tracker_db.SOURCE))
    return Corpus(copy, docs, open_corpus(copy).issues)


def test_an_edited_issue_is_searchable_at_once_and_the_docs_index_is_kept(tmp_path: Path) -> None:
    folder = _synced(tmp_path / "repo")
    first = open_corpus(folder)
    docs = first.docs
    assert "Zeppelin" not in str(_results(first))
    _webhook(folder, {"id": 3, "title": "Zeppelin hovercraft: reconnect storm", "body": "after failover"})
    after = open_corpus(folder)
    assert after is not first and [i.id for i in after.issues.search("zeppelin hovercraft")] == [3]
    assert after.docs is docs  # the edited thread names no doc's identifier: nothing in the docs index changed
    assert _results(after) == _results(_from_scratch(folder, tmp_path))


def test_an_issue_naming_a_docs_identifier_brings_its_words_to_that_section_as_a_rebuild_would(tmp_path: Path) -> None:
    folder = _synced(tmp_path / "repo")
    docs = open_corpus(folder).docs
    new = {"id": 40, "title": "Zeppelin hovercraft jobs", "body": "Does heartbeat_seconds apply to them?"}
    _webhook(folder, new)
    after = open_corpus(folder)
    assert after.docs is not docs and after.docs.pages is docs.pages  # the bridge changed; the pages were kept
    hits = after.docs.search("zeppelin hovercraft", 3)
    assert hits and hits[0].heading == "Heartbeats"  # the new thread's words reach the section it names
    assert _results(after) == _results(_from_scratch(folder, tmp_path))


def test_a_search_of_issues_alone_never_builds_the_docs_index(tmp_path: Path) -> None:
    folder = _synced(tmp_path / "repo")
    corpora._cache.clear()
    corpus = open_corpus(folder)
    assert corpus.issues.search("cron twice")
    assert corpus.docs_source.built() is None  # type: ignore[union-attr]
    assert "error-codes" in corpus.docs.pages and corpus.docs_source.built() is corpus.docs  # type: ignore[union-attr]


def test_edits_while_the_docs_are_never_read_leave_one_index_to_build(tmp_path: Path) -> None:
    """Corpora whose docs nobody read are not chained: the next one starts from the last index that was built."""
    folder = _synced(tmp_path / "repo")
    docs = open_corpus(folder).docs
    for n in range(3):
        _webhook(folder, {"id": 50 + n, "title": f"Quasar {n}", "body": "nothing the docs name"})
        open_corpus(folder).issues.search("quasar")
    assert open_corpus(folder).docs is docs
    assert _results(open_corpus(folder)) == _results(_from_scratch(folder, tmp_path))
