"""Answers corrected when their sources change, at the port (issue 39): what an answer cited is kept with what it
was; a change of whitespace tells nothing, a real change tells each watching thread once with the new text, an
issue cited open and now closed is told, a channel's notes per hour are kept and the rest told by a later check."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import redis

from atlas.knowledge_settings import KnowledgeSettings
from atlas.settings import Settings
from tests.support.tools_dataset import LEASES, make_dataset
from tools.context import ToolContext
from tools.corpus import open_corpus
from tools.docs_tools import GetDocSectionArgs, get_doc_section
from workers.agent.sources import sources_of
from workers.chat import ThreadNote
from workers.knowledge import changes, watches
from workers.knowledge.cited import cited, digest
from workers.runs.post_once import KeyedSlot
from workers.runs.state import Origin, RunState

HEADING = "lease_seconds"


@dataclass
class Platform:
    posted: list[tuple[str, str]] = field(default_factory=list)

    def thread_note(self, place: Origin, text: str, once: KeyedSlot | None = None) -> ThreadNote:
        self.posted.append((place.thread_ts or "", text))
        if once is not None:
            once.record(place.channel or "", str(len(self.posted)))
        return "posted"


@dataclass
class Parts:
    conn: redis.Redis
    settings: Settings
    platform: Platform = field(default_factory=Platform)

    def platform_for(self, kind: str) -> Platform:
        return self.platform


def _answered(root: Path, thread: str, channel: str = "C1") -> RunState:
    """A Slack run that read the lease_seconds section and searched the issues, answering from both."""
    corpus = open_corpus(root)
    read = get_doc_section(
        GetDocSectionArgs(doc_id="leases-and-heartbeats", heading="lease_seconds"), ToolContext(corpus)
    )
    run = RunState(
        question="how long is a lease?", origin=Origin(kind="slack", team="T1", channel=channel, message_ts=thread)
    )
    run.items = [
        {"type": "function_call", "name": "get_doc_section", "call_id": "c1", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": str(read)},
        {"type": "function_call", "name": "search_issues", "call_id": "c2", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "#3 [open] Reconnect storm after Redis failover"},
    ]
    run.answer = "Leases last `lease_seconds`, 60 by default (leases-and-heartbeats); see also #3."
    run.sources = sources_of(run, corpus.docs.pages)
    return run


def _settings(root: Path, tmp_path: Path, per_hour: int = 6) -> Settings:
    return Settings(
        data_dir=root,
        home=tmp_path / "home",
        semantic_docs=False,
        knowledge=KnowledgeSettings(watch_days=30, notes_per_hour=per_hour),
    )


def test_whitespace_tells_nothing_a_real_change_tells_each_thread_once_with_the_new_text(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    root = make_dataset(tmp_path / "data")
    rt = Parts(redis_conn, _settings(root, tmp_path))
    for thread in ("1.1", "2.2"):
        run = _answered(root, thread)
        kept = cited(run, open_corpus(root))
        assert [c.key for c in kept] == [f"doc:leases-and-heartbeats§{HEADING}", "issue:3"] and kept[
            1
        ].fingerprint == "open"
        assert watches.record(redis_conn, run, kept, rt.settings.knowledge.watch_seconds) == 2
    page = root / "docs" / "leases-and-heartbeats.md"
    page.write_text(
        LEASES.replace(
            "The lease lasts `lease_seconds` (default 60). Raise it",
            "The lease lasts   `lease_seconds`\n(default 60).  Raise it",
        )
    )
    assert changes.check(rt) == "" and rt.platform.posted == []  # reflowed, not changed
    page.write_text(LEASES.replace("(default 60)", "(default 90)"))
    assert changes.check(rt) == "; 2 thread(s) told of a changed source"
    assert [t for t, _ in rt.platform.posted] == ["1.1", "2.2"]
    assert (
        f"leases-and-heartbeats § {HEADING}" in rt.platform.posted[0][1] and "(default 90)" in rt.platform.posted[0][1]
    )
    assert changes.check(rt) == "" and len(rt.platform.posted) == 2  # once per thread and source
    run = _answered(root, "1.1")
    assert [n["label"] for n in watches.notes_of(redis_conn, run.id)] == []  # notes are kept under the run they correct
    assert digest("a  b\n c") == digest("a b c") != digest("a b d")


def test_an_issue_cited_open_and_now_closed_is_told(redis_conn: redis.Redis, tmp_path: Path) -> None:
    root = make_dataset(tmp_path / "data")
    rt = Parts(redis_conn, _settings(root, tmp_path))
    run = _answered(root, "3.3")
    watches.record(redis_conn, run, cited(run, open_corpus(root)), rt.settings.knowledge.watch_seconds)
    source = root / "issues" / "issues.jsonl"
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    rows[2].update(state="closed", closed_at="2025-11-01T09:00:00Z")
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert changes.check(rt, ("issue",), {"issue:3"}) == "; 1 thread(s) told of a changed source"
    [(thread, note)] = rt.platform.posted
    assert thread == "3.3" and note.startswith("An issue this answer cited is now closed: #3")
    assert [n["source"] for n in watches.notes_of(redis_conn, run.id)] == ["issue:3"]


def test_a_channels_notes_per_hour_are_kept_and_the_rest_told_later(redis_conn: redis.Redis, tmp_path: Path) -> None:
    root = make_dataset(tmp_path / "data")
    rt = Parts(redis_conn, _settings(root, tmp_path, per_hour=1))
    for thread in ("4.4", "5.5"):
        run = _answered(root, thread, channel="C9")
        watches.record(redis_conn, run, cited(run, open_corpus(root)), rt.settings.knowledge.watch_seconds)
    (root / "docs" / "leases-and-heartbeats.md").write_text(LEASES.replace("(default 60)", "(default 120)"))
    changes.check(rt, ("doc",))
    assert [t for t, _ in rt.platform.posted] == ["4.4"]
    rt.settings = replace(rt.settings, knowledge=KnowledgeSettings(watch_days=30, notes_per_hour=2))
    changes.check(rt, ("doc",))
    assert [t for t, _ in rt.platform.posted] == ["4.4", "5.5"]


def test_a_cited_file_tells_of_a_real_change_only_and_a_thread_following_the_issue_hears_its_notice_alone(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    from datasets import generate, knowledge_generate
    from datasets.knowledge_files import CODE, REPO
    from workers.followup import subscriptions as subs

    root = make_dataset(tmp_path / "data")
    knowledge_generate.write(root, generate.issue_numbers())
    (root / REPO).write_text(json.dumps({"url": "https://github.com/o/r", "commit": "a" * 40}))
    corpus = open_corpus(root)
    assert corpus.knowledge is not None
    path = next(p for p in corpus.knowledge.paths() if p.endswith(".py"))
    rt = Parts(redis_conn, _settings(root, tmp_path))
    run = _answered(root, "6.6")
    run.items += [
        {"type": "function_call", "name": "read_file", "call_id": "c3", "arguments": json.dumps({"path": path})},
        {"type": "function_call_output", "call_id": "c3", "output": f"{path} lines 1-5"},
    ]
    run.answer = (run.answer or "") + f" The code is in {path}."
    kept = cited(run, corpus)
    assert [c.key for c in kept][-1] == f"file:{path}" and kept[-1].detail
    watches.record(redis_conn, run, kept, rt.settings.knowledge.watch_seconds)
    subs.subscribe(
        redis_conn, "demo", 3, subs.place_of(run), run.id, "linked"
    )  # it follows #3: the close notice tells it
    source = root / CODE / path
    text = source.read_text()
    source.write_text(text.replace("\n", "\n\n", 1) + "   \n")  # blank lines and trailing spaces: no change
    (root / REPO).write_text(json.dumps({"url": "https://github.com/o/r", "commit": "b" * 40}))
    assert changes.check(rt, ("file",)) == ""
    source.write_text(text + "\nADDED = 1\n")
    (root / REPO).write_text(json.dumps({"url": "https://github.com/o/r", "commit": "c" * 40}))
    assert changes.check(rt, ("file",)) == "; 1 thread(s) told of a changed source"
    [(_, note)] = rt.platform.posted
    assert (
        note.startswith(f"A file this answer cited has changed: {path} (now blob ")
        and f"/blob/{'c' * 40}/{path}" in note
    )
    rows = [json.loads(line) for line in (root / "issues" / "issues.jsonl").read_text().splitlines()]
    rows[2].update(state="closed", closed_at="2025-11-01T09:00:00Z")
    (root / "issues" / "issues.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert changes.check(rt, ("issue",), {"issue:3"}) == "" and len(rt.platform.posted) == 1


def test_a_cited_release_tells_when_its_notes_change(redis_conn: redis.Redis, tmp_path: Path) -> None:
    from datasets import generate, knowledge_generate
    from datasets.knowledge_files import RELEASES, REPO
    from tools.history_tools import header

    root = make_dataset(tmp_path / "data")
    knowledge_generate.write(root, generate.issue_numbers())
    (root / REPO).write_text(json.dumps({"url": "https://github.com/o/r", "commit": "a" * 40}))
    corpus = open_corpus(root)
    assert corpus.knowledge is not None
    shipped = corpus.knowledge.releases()[-1]
    rt = Parts(redis_conn, _settings(root, tmp_path))
    run = RunState(
        question="which release fixed it?", origin=Origin(kind="slack", team="T1", channel="C1", message_ts="7.7")
    )
    run.items = [
        {"type": "function_call", "name": "search_history", "call_id": "c1", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": f'History matching "x":\n- {header(shipped)}'},
    ]
    run.answer = f"It shipped in {shipped.tag}."
    kept = cited(run, corpus)
    assert [c.key for c in kept] == [f"release:{shipped.tag}"]
    watches.record(redis_conn, run, kept, rt.settings.knowledge.watch_seconds)
    lines = (root / RELEASES).read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    for row in rows:
        if row.get("tag") == shipped.tag:
            row["body"] = str(row.get("body") or "") + "\n\nAlso: the scheduler no longer drifts."
    (root / RELEASES).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (root / REPO).write_text(json.dumps({"url": "https://github.com/o/r", "commit": "b" * 40}))
    assert changes.check(rt, ("release",)) == "; 1 thread(s) told of a changed source"
    assert rt.platform.posted[0][1].startswith(f"The notes of a release this answer cited have changed: {shipped.tag}.")


def test_a_discord_channels_threads_share_its_notes_per_hour(redis_conn: redis.Redis, tmp_path: Path) -> None:
    """On Discord each answer is in a thread of its own (the thread is the place notes go to): the hourly limit is
    the channel's the question was asked in, not each thread's, or a changed section cited in many threads floods
    the channel."""
    root = make_dataset(tmp_path / "data")
    rt = Parts(redis_conn, _settings(root, tmp_path, per_hour=1))
    for thread in ("9001", "9002"):
        run = _answered(root, thread)
        run.origin = Origin(kind="discord", team="G1", channel="HELP1", thread_ts=thread, message_ts=f"m{thread}")
        watches.record(redis_conn, run, cited(run, open_corpus(root)), rt.settings.knowledge.watch_seconds)
    (root / "docs" / "leases-and-heartbeats.md").write_text(LEASES.replace("(default 60)", "(default 120)"))
    assert changes.check(rt, ("doc",)) == "; 1 thread(s) told of a changed source"
    assert [t for t, _ in rt.platform.posted] == ["9001"]


def test_a_watch_entry_keeps_its_place_without_nulls_and_reads_back_whole(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    """Each citing answer leaves one entry per source for the watch window (issue 40's `redis_keys`): its place is
    stored without the fields at their defaults, and the channel only when it is not the place's own."""
    root = make_dataset(tmp_path / "data")
    run = _answered(root, "1700000000.000100")
    seconds = _settings(root, tmp_path).knowledge.watch_seconds
    assert watches.record(redis_conn, run, cited(run, open_corpus(root)), seconds) == 2
    (raw,) = redis_conn.hvals(watches.source_key("issue:3"))
    entry = json.loads(raw)
    assert entry["place"] == {"kind": "slack", "channel": "C1", "thread_ts": "1700000000.000100", "team": "T1"}
    assert "channel" not in entry and b"null" not in raw
    (watch,) = watches.of_source(redis_conn, "issue:3", seconds)
    assert (watch.place, watch.channel, watch.run_id) == (
        Origin(kind="slack", team="T1", channel="C1", thread_ts="1700000000.000100"),
        "C1",
        run.id,
    )
