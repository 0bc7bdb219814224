"""A tool call's reads of the knowledge index are one snapshot, even when an update commits in the middle of it.

The update is run deterministically between two statements of one call: from sqlite3's trace callback on the
reader's own connection, when the call starts its second kind of statement (the names defined in a chunk,
after the chunks were found). The call must answer as the index was before the update or as it is after, never
with a mix (a chunk of the old file with the names and text of the new one).
"""

from __future__ import annotations

import json
from pathlib import Path

from datasets import knowledge_index
from datasets.knowledge_files import CODE, REPO
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry

OLD = "def renew_lease(job):\n    # the lease is renewed here\n    return job.lease + 30\n"
NEW = "\n\ndef extend_lease(job):\n    # the lease is renewed here, later\n    return job.lease + 60\n"


def write_tree(root: Path, text: str, commit: str) -> None:
    (root / CODE / "orbit").mkdir(parents=True, exist_ok=True)
    (root / CODE / "orbit" / "lease.py").write_text(text)
    (root / REPO).parent.mkdir(parents=True, exist_ok=True)
    (root / REPO).write_text(json.dumps({"url": "https://github.com/o/r", "commit": commit}))  # last, as a sync does


def search(ctx: ToolContext) -> str:
    return dispatch(
        v2_registry(), "search_code", json.dumps({"query": "lease renewed", "path_prefix": None, "limit": 3}), ctx
    ).text


def test_a_call_straddling_an_update_answers_from_one_state(tmp_path: Path) -> None:
    root = make_dataset(tmp_path / "data")
    write_tree(root, OLD, "a" * 40)
    ctx = ToolContext(corpus=open_corpus(root))
    store = ctx.corpus.knowledge
    assert store is not None
    old = search(ctx)
    assert "renew_lease" in old

    write_tree(root, NEW, "b" * 40)
    ran: list[str] = []
    failed: list[BaseException] = []

    def between_statements(sql: str) -> None:
        if ran or "FROM symbols WHERE file_id" not in sql:
            return
        ran.append(sql)
        try:
            knowledge_index.ensure(root)  # another process's update, committed while this call is half done
        except BaseException as exc:  # the trace callback swallows exceptions: keep them for the assertion
            failed.append(exc)

    store.connection().set_trace_callback(between_statements)
    straddling = search(ctx)
    store.connection().set_trace_callback(None)
    assert ran and not failed  # the update did commit between the call's statements
    new = search(ctx)
    assert "extend_lease" in new and new != old  # the next call sees the update
    assert straddling in (old, new)


def test_snapshots_nest_and_end_with_the_outer_one(tmp_path: Path) -> None:
    root = make_dataset(tmp_path / "data")
    write_tree(root, OLD, "a" * 40)
    store = open_corpus(root).knowledge
    assert store is not None
    with store.snapshot():
        with store.snapshot():
            assert store.meta("commit") == "a" * 40
        write_tree(root, NEW, "b" * 40)
        knowledge_index.ensure(root)
        assert store.meta("commit") == "a" * 40  # still the outer snapshot
    assert store.meta("commit") == "b" * 40 and not store.connection().in_transaction
