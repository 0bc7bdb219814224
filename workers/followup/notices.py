"""Closing the loop: a subscribed issue's close (`issues.closed`) or a release that mentions it
(`release.published`, `#N` in its notes, or the configured repository's issue or pull-request URL, as GitHub's
generated release notes list them) is told once in every thread that follows the issue.

Once per event and thread, whatever GitHub redelivers and whatever kills a worker: the webhook claims the
delivery id (bot/github/webhook.py), and each notice is claimed here by (issue, event, thread) and by the job
before it is posted, and posted once (workers/runs/post_once.py: a retry of that job finds a notice it posted
by its marker in the thread, and posts one it never got to):
the close by the issue's `closed_at` (a reopened and closed again issue is told again), the release by its
id. A thread whose channel Atlas was removed from, or that is gone, gets no message: a log line says so
and the subscription is dropped. A platform failure (an outage) fails the webhook job, which RQ retries
(bot/github/webhook.py), and only what was not posted is tried again. The notice goes through the chat port
(workers/chat.py).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import redis
from rq import get_current_job

from atlas.connection import text
from workers import wording
from workers.errors import NoticeUndelivered
from workers.followup import subscriptions as subs
from workers.parts import WorkerParts

log = logging.getLogger("atlas.followup")

SENT_TTL_SECONDS = subs.SUBSCRIPTION_TTL_SECONDS
MENTION = re.compile(r"(?<![\w/&])#(\d{1,9})\b")
DUPLICATE_COMMENT = re.compile(r"(?i)\bduplicate of #(\d+)\b")


def on_event(rt: WorkerParts, event: str, action: str, payload: dict[str, Any], duplicate_of: int | None = None) -> str:
    """'' when no subscribed thread is concerned, else a short note for the webhook job's result."""
    tracker = subs.tracker_name(rt.settings)
    if event == "issues" and action == "closed":
        issue = payload.get("issue") or {}
        if not isinstance(issue.get("number"), int) or "pull_request" in issue:
            return ""
        number = int(issue["number"])
        text = closed_text(issue, payload, duplicate_of)
        told = _tell(rt, tracker, number, f"closed:{issue.get('closed_at') or ''}", text)
        return f"; {told} thread(s) told of the close of #{number}" if told else ""
    if event == "release" and action == "published":
        release = payload.get("release") or {}
        name = str(release.get("name") or release.get("tag_name") or "")
        told = 0
        repo = rt.settings.github.repo if rt.settings.github is not None else None
        for number in mentioned(f"{release.get('name') or ''}\n{release.get('body') or ''}", repo):
            text = wording.NOTICE_RELEASED.format(number=number, release=name, url=release.get("html_url") or "")
            told += _tell(rt, tracker, number, f"release:{release.get('id')}", text)
        return f"; {told} thread(s) told of release {name}" if told else ""
    return ""


def closed_text(issue: dict[str, Any], payload: dict[str, Any], duplicate_of: int | None) -> str:
    """'#12 "title" was closed by @alice as a duplicate of #3: URL'."""
    reason = str(issue.get("state_reason") or "completed")
    how = wording.NOTICE_CLOSED_HOW.get(reason, wording.NOTICE_CLOSED_HOW["completed"])
    if reason == "duplicate" and duplicate_of:
        how = wording.NOTICE_DUPLICATE_OF.format(original=duplicate_of)
    who = str((payload.get("sender") or {}).get("login") or "someone")
    return wording.NOTICE_CLOSED.format(
        number=issue["number"],
        title=str(issue.get("title") or ""),
        who=f"@{who}",
        how=how,
        url=issue.get("html_url") or "",
    )


def mentioned(text: str, repo: str | None = None) -> list[int]:
    """Issue numbers a release's notes mention as `#N` or, for `repo` (`owner/name`), as its issue or pull-request
    URL (`https://github.com/owner/name/pull/N`, GitHub's generated notes); in order, once each. Another
    repository's URLs name other issues: never matched."""
    found = [(m.start(), int(m.group(1))) for m in MENTION.finditer(text)]
    if repo:
        url = re.compile(rf"https?://github\.com/{re.escape(repo)}/(?:pull|issues)/(\d{{1,9}})(?![\w-])", re.IGNORECASE)
        found += [(m.start(), int(m.group(1))) for m in url.finditer(text)]
    return list(dict.fromkeys(number for _, number in sorted(found)))


def duplicate_in(comments: list[dict[str, Any]]) -> int | None:
    """The original a "Duplicate of #N" comment names (GitHub's own convention), the last one wins."""
    found = None
    for comment in comments:
        match = DUPLICATE_COMMENT.search(str(comment.get("body") or ""))
        if match:
            found = int(match.group(1))
    return found


def _tell(rt: WorkerParts, tracker: str, number: int, event: str, text: str) -> int:
    """Post `text` once in each thread following the issue; how many were told now. A notice the platform failed
    to take stays claimed by this job and, once the others are posted, NoticeUndelivered fails the job for RQ to
    retry: the retry (the same job) resumes its claims (`_Notice`)."""
    told = 0
    failed: list[str] = []
    owner = _job_id()
    for sub in subs.for_issue(rt.conn, tracker, number):
        notice = _Notice.claim(rt.conn, f"atlas:subs:sent:{tracker}#{number}:{event}:{sub.thread}", owner)
        if notice is None:
            continue  # told already, or being told by another job (a redelivery, a second delivery of the same event)
        platform = rt.platform_for(sub.place.kind)
        if platform is None:
            log.warning(
                "notice for %s#%s not posted in %s: %s is not configured in this worker",
                tracker,
                number,
                sub.thread,
                sub.place.kind,
            )
            rt.conn.delete(notice.key)
            continue
        try:
            outcome = platform.thread_note(sub.place, text, once=notice)
        except Exception as exc:
            log.warning(
                "notice for %s#%s could not be posted in %s (%s); the job is retried",
                tracker,
                number,
                sub.thread,
                type(exc).__name__,
                exc_info=True,
            )
            failed.append(sub.thread)
            continue
        if outcome == "gone":
            log.warning(
                "notice for %s#%s not posted: Atlas is no longer in the channel of thread %s (run %s); "
                "subscription dropped",
                tracker,
                number,
                sub.thread,
                sub.run_id,
            )
            subs.drop(rt.conn, sub)
            continue
        told += 1
    if failed:
        raise NoticeUndelivered(f"{len(failed)} notice(s) of {tracker}#{number} not posted: {', '.join(failed)}")
    return told


def _job_id() -> str:
    """The webhook job's id: RQ's retry of a job keeps it, so a retried job knows the claims it made."""
    job = get_current_job()
    return job.id if job is not None else ""


@dataclass
class _Notice:
    """One notice's claim in one thread, and its slot (workers/runs/post_once.py). The claim names the job that
    made it and when it set out to post (`posting:<job>:<time>`), then where the notice went (`posted:<id>`):
    another job leaves a claimed notice alone, and the job's own retry (after a SIGKILL, an outage) looks
    in the thread for the notice since then before posting it."""

    conn: redis.Redis
    key: str
    owner: str
    since: float = 0.0  # the claim's time when resumed: look for the notice first

    @classmethod
    def claim(cls, conn: redis.Redis, key: str, owner: str) -> _Notice | None:
        """This job's claim on the notice (new, or resumed by its retry), None when it is another job's or posted."""
        if conn.set(key, f"posting:{owner}:{time.time():.6f}", nx=True, ex=SENT_TTL_SECONDS):
            return cls(conn, key, owner)
        state, _, rest = text(conn.get(key) or b"").partition(":")
        held_by, _, at = rest.rpartition(":")
        if state != "posting" or held_by != owner:
            return None
        return cls(conn, key, owner, since=float(at or 0) or 1.0)

    def posted(self) -> tuple[str, str] | None:
        return None  # a posted notice is never claimed again

    def posting(self) -> float:
        return self.since

    def intend(self, at: float) -> None:
        self.conn.set(self.key, f"posting:{self.owner}:{at:.6f}", ex=SENT_TTL_SECONDS)

    def record(self, channel: str, message: str) -> None:
        self.conn.set(self.key, f"posted:{channel}:{message}", ex=SENT_TTL_SECONDS)
