"""Answers corrected when their sources change (issue 39): after a sync or a webhook changed the folder the
tools read, each thread whose answer (within ATLAS_ANSWER_WATCH_DAYS) cited a docs section, file or issue that
is now different hears of it once: what changed and the new text or link.

Once per thread and source (`atlas:watch:sent:...`, claimed before posting and posted through the chat port's
once-slot, so a killed or retried job posts it at most once), never for a change of whitespace only (the
fingerprints are of collapsed text, workers/knowledge/cited.py), and at most ATLAS_ANSWER_NOTES_PER_HOUR per
channel: a note over the limit is left for a later check (its source still differs). A platform failure fails
the job (NoticeUndelivered), which RQ retries; a channel Atlas left drops the thread's watch.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import redis
from rq import get_current_job

from atlas.connection import text
from tools.corpus import Corpus, open_corpus
from workers.agent.sources import source_url
from workers.errors import NoticeUndelivered
from workers.followup import subscriptions as subs
from workers.knowledge import cited as citing
from workers.knowledge import watches, wording
from workers.parts import WorkerParts

log = logging.getLogger("atlas.knowledge")
RATE_WINDOW_SECONDS = 3600


def check(
    rt: WorkerParts, kinds: tuple[str, ...] = ("doc", "file", "issue", "release"), only: set[str] | None = None
) -> str:
    """Tell each watching thread of a cited source that changed; '' when none was told, else a short note for
    the job's result. `only`: just these sources (an issue's webhook)."""
    window = rt.settings.knowledge.watch_seconds
    if window <= 0:
        return ""
    sources = [s for s in watches.watched(rt.conn, window, kinds) if only is None or s in only]
    if not sources:
        return ""
    corpus = open_corpus(rt.settings.data_dir, rt.settings.home, rt.settings.semantic_docs)
    told, failed = 0, []
    for source in sources:
        current = citing.now(source, corpus)
        if current is None:
            continue
        for watch in watches.of_source(rt.conn, source, window):
            if watch.fingerprint == current.fingerprint or _follows(rt, watch, current):
                continue
            outcome = _tell(rt, watch, note_text(rt, corpus, current))
            told += outcome == "told"
            if outcome == "failed":
                failed.append(watch.thread)
    if failed:
        raise NoticeUndelivered(f"{len(failed)} note(s) of changed sources not posted: {', '.join(failed)}")
    return f"; {told} thread(s) told of a changed source" if told else ""


def note_text(rt: WorkerParts, corpus: Corpus, current: citing.Cited) -> str:
    """What the note says: what changed, and the new text (a section) or a link."""
    kind, _, rest = current.key.partition(":")
    settings = rt.settings
    if kind == "doc":
        doc_id = rest.partition("§")[0]
        if current.fingerprint == citing.GONE:
            return wording.SECTION_GONE.format(label=current.label)
        page = corpus.docs.pages.get(doc_id)
        url = (page.url if page is not None and page.url else None) or source_url(
            doc_id, docs_base_url=settings.docs_base_url, issues_base_url=None
        )
        body = " ".join(citing.section_text(current.key, corpus).split())
        body = body if len(body) <= wording.QUOTE_CHARS else body[: wording.QUOTE_CHARS - 1].rstrip() + "\u2026"
        said = wording.SECTION_CHANGED.format(label=current.label, quote=f"> {body}")
        return said + (wording.LINK.format(url=url) if url else "")
    if kind == "file":
        if current.fingerprint == citing.GONE:
            return wording.FILE_GONE.format(label=current.label)
        store = corpus.knowledge
        base, commit = (store.meta("url").rstrip("/"), store.meta("commit")) if store is not None else ("", "")
        said = wording.FILE_CHANGED.format(label=current.label, sha=current.detail[:7])
        return said + (wording.LINK.format(url=f"{base}/blob/{commit}/{rest}") if base and commit else "")
    if kind == "release":
        if current.fingerprint == citing.GONE:
            return wording.RELEASE_GONE.format(label=current.label)
        said = wording.RELEASE_CHANGED.format(label=current.label)
        return said + (wording.LINK.format(url=current.detail) if current.detail else "")
    state = "deleted" if current.fingerprint == citing.GONE else current.fingerprint
    url = source_url(
        current.label,
        docs_base_url=None,
        issues_base_url=settings.issues_base_url
        or (
            f"{settings.github.web_url.rstrip('/')}/{settings.github.repo}/issues"
            if settings.github is not None
            else None
        ),
    )
    return wording.ISSUE_CHANGED.format(state=state, label=current.label) + (
        wording.LINK.format(url=url) if url else ""
    )


def _tell(rt: WorkerParts, watch: watches.Watch, note: str) -> str:
    """'told', 'skipped' (told already, another job's, over the channel's rate, no platform) or 'failed'."""
    slot = _Slot.claim(
        rt.conn, watches.sent_key(watch.source, watch.thread), _job_id(), rt.settings.knowledge.watch_seconds
    )
    if slot is None:
        return "skipped"
    if slot.since == 0.0 and not _within_rate(rt.conn, watch, rt.settings.knowledge.notes_per_hour):
        rt.conn.delete(slot.key)  # a later check tells it: the source still differs
        log.info("note on %s in %s waits: the channel's notes per hour are spent", watch.source, watch.thread)
        return "skipped"
    platform = rt.platform_for(watch.place.kind)
    if platform is None:
        rt.conn.delete(slot.key)
        return "skipped"
    try:
        outcome = platform.thread_note(watch.place, note, once=slot)
    except Exception as exc:
        log.warning(
            "note on %s could not be posted in %s (%s); the job is retried",
            watch.source,
            watch.thread,
            type(exc).__name__,
            exc_info=True,
        )
        return "failed"
    if outcome == "gone":
        log.warning(
            "note on %s not posted: Atlas is no longer in the channel of thread %s; watch dropped",
            watch.source,
            watch.thread,
        )
        watches.forget(rt.conn, watch)
        return "skipped"
    state = text(rt.conn.get(slot.key) or b"")
    _, channel, message = (state.split(":", 2) + ["", ""])[:3]
    watches.note_posted(rt.conn, watch, note, channel, message)
    watches.forget(rt.conn, watch)
    log.info("thread %s told that %s changed (run %s)", watch.thread, watch.source, watch.run_id)
    return "told"


def _follows(rt: WorkerParts, watch: watches.Watch, current: citing.Cited) -> bool:
    """A thread subscribed to the issue hears of its close from workers/followup/notices.py, not twice; that
    notice tells closes only, so a reopening (or a deletion) is told here."""
    kind, _, number = watch.source.partition(":")
    if kind != "issue" or current.fingerprint != "closed":
        return False
    return (subs.tracker_name(rt.settings), int(number)) in subs.for_thread(rt.conn, watch.place)


def _within_rate(conn: redis.Redis, watch: watches.Watch, per_hour: int) -> bool:
    """Count this note against its channel's hour; False (and uncounted) when the hour's notes are spent. The
    channel is the one asked in: on Discord each answer's thread is a channel of its own, and a limit per thread
    would let a change cited in many threads flood their channel."""
    place = watch.place
    window = int(time.time() // RATE_WINDOW_SECONDS)
    key = f"atlas:watch:rate:{place.kind}:{place.team or '-'}:{watch.channel or place.channel or '-'}:{window}"
    pipe = conn.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, RATE_WINDOW_SECONDS * 2)
    count = int(pipe.execute()[0])
    if count > per_hour:
        conn.decr(key)
        return False
    return True


def _job_id() -> str:
    job = get_current_job()
    return job.id if job is not None else ""


@dataclass
class _Slot:
    """The note's claim and its once-slot (workers/runs/post_once.py): `posting:<job>:<time>`, then
    `posted:<channel>:<message>`. Another job leaves a claimed note alone; the same job's retry resumes it."""

    conn: redis.Redis
    key: str
    owner: str
    ttl: int
    since: float = 0.0

    @classmethod
    def claim(cls, conn: redis.Redis, key: str, owner: str, ttl: int) -> _Slot | None:
        if conn.set(key, f"posting:{owner}:{time.time():.6f}", nx=True, ex=ttl):
            return cls(conn, key, owner, ttl)
        state, _, rest = text(conn.get(key) or b"").partition(":")
        held_by, _, at = rest.rpartition(":")
        if state != "posting" or held_by != owner or not owner:
            return None
        return cls(conn, key, owner, ttl, since=float(at or 0) or 1.0)

    def posted(self) -> tuple[str, str] | None:
        return None

    def posting(self) -> float:
        return self.since

    def intend(self, at: float) -> None:
        self.conn.set(self.key, f"posting:{self.owner}:{at:.6f}", ex=self.ttl)

    def record(self, channel: str, message: str) -> None:
        self.conn.set(self.key, f"posted:{channel}:{message}", ex=self.ttl)
