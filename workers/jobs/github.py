"""RQ jobs that keep a synced repository fresh: one webhook event, and the periodic incremental sync.
An issue closed, or a release published, is also told in the threads that follow the issue (workers/followup/).

A webhook job applies the event's issue, comment or label to the staging store (unless what is stored was updated later:
deliveries may arrive out of order) and refreshes the folder the tools read (a deleted or transferred issue disappears
from search); a push to the default branch that touches the docs or the synced code re-reads their trees (only changed
blobs are fetched), and one that touches neither costs no request. GitHub does not redeliver failed webhooks by itself,
so a periodic sync (`ATLAS_SYNC_INTERVAL`) is the backstop (and starts triage for issues opened since the inbox last saw
one): scheduled through RQ's scheduler, one chain per repository, and never two syncs at once (a Redis lock held while
one runs).
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from typing import Any

import redis
from rq import Queue

from atlas.project_settings import GitHubSettings
from datasets.github import index as github_index
from datasets.github.store import Store
from workers.jobs import sync_lock

log = logging.getLogger("atlas.github.jobs")
SYNC_LOCK_SECONDS = 3600  # the backstop sync job's timeout; its lock is short and renewed (sync_lock.py)


def apply_event(event: str, payload: dict[str, Any], fingerprint: str | None = None) -> str:
    """Apply one verified, deduplicated webhook delivery to the served folder; returns what it did.
    `fingerprint`: the web process's settings, carried to the triage run it starts (a worker under other
    settings refuses that run, workers/new_issues/triage_run.py)."""
    from workers.process import repo_parts, runtime

    rt: Any = runtime.current()
    if rt.settings.github is None:
        return "ignored: no GitHub repository configured"
    named = str((payload.get("repository") or {}).get("full_name") or "")
    repo = repo_parts.served(rt, named) if named else rt.settings.github.repo
    if repo is None:  # removed from the App's installation after the web process took the delivery
        return f"ignored: {named} is not served"
    rt = repo_parts.for_repo(rt, repo)  # that repository's folder, tracker and triage (issue 38)
    gh, folder = rt.settings.github, rt.settings.data_dir
    if event == "push":  # then a thread whose answer cited a changed section or file hears of it
        from workers.knowledge import changes

        done = _push(gh, folder, payload)
        return done + ("" if done.startswith("ignored") else changes.check(rt, ("doc", "file")))
    if event == "release":  # nothing to store: a subscribed thread hears of an issue the notes mention
        from workers.followup import notices

        return f"release.{payload.get('action')}" + notices.on_event(
            rt, event, str(payload.get("action") or ""), payload
        )
    action = str(payload.get("action") or "")
    late = False  # a payload older than what is stored (GitHub does not promise order) changes nothing

    def change(store: Store) -> None:
        nonlocal late
        if event == "issues":
            number = int(payload["issue"]["number"])
            if action in ("deleted", "transferred"):
                store.delete_issue(number)
            else:
                store.put_issue(payload["issue"])
                late = number not in store.touched
        elif event == "issue_comment":
            number = int(payload["issue"]["number"])
            if action == "deleted":
                store.delete_comment(int(payload["comment"]["id"]))
            else:
                store.put_comment(payload["comment"], number)
                late = number not in store.touched
        elif event == "label":
            name = str(payload["label"]["name"])
            if action == "deleted":
                store.delete_label(name)
            else:
                old = ((payload.get("changes") or {}).get("name") or {}).get("from")
                store.put_label(name, old)

    if event not in ("issues", "issue_comment", "label"):
        return f"ignored: {event}"
    github_index.apply(folder, change)
    from workers.new_issues.webhook import on_event

    # After the store (triage reads it), and even for a late `opened` (an `edited` overtook it): claimed once
    # either way.
    triaged = on_event(rt, gh.repo, event, action, payload, fingerprint)
    original = _duplicate_original(gh, folder, payload) if event == "issues" and action == "closed" else None
    told = _closed_notices(rt, event, action, payload, original) + _cited_issue(rt, event, payload)
    learnt = _outcome(rt, gh.repo, event, action, payload, original)
    done = f"skipped {event}.{action}: what is stored was updated later" if late else f"applied {event}.{action}"
    return done + triaged + told + learnt + _recalibrate(rt, gh.repo, event, action, late)


# What changes a calibration's samples: a closed issue's state, labels or duplicate decision, a label's name.
CALIBRATING = {("issues", a) for a in ("closed", "reopened", "labeled", "unlabeled", "deleted", "transferred")} | {
    ("label", a) for a in ("edited", "deleted")
}


def _recalibrate(rt: Any, repo: str, event: str, action: str, late: bool) -> str:
    """A delivery that changed what calibration reads asks for the repository's recalibration (jobs/calibration)."""
    if late or (event != "sync" and (event, action) not in CALIBRATING) or not rt.settings.triage.enabled:
        return ""
    from workers.triage import recalibration

    return recalibration.ask(rt.conn, rt.settings.queue_name, repo)


def _outcome(rt: Any, repo: str, event: str, action: str, payload: dict[str, Any], original: int | None) -> str:
    """What the delivery teaches triage (workers/new_issues/learning.py), recorded once per job (RQ keeps a retried
    job's id; the web process already claimed the delivery)."""
    from rq import get_current_job

    from workers.new_issues import learning

    job = get_current_job()
    key = job.id if job is not None else uuid.uuid4().hex
    return learning.on_event(rt.conn, repo, event, action, payload, key, original, rt.settings.queue_name)


def _closed_notices(rt: Any, event: str, action: str, payload: dict[str, Any], original: int | None) -> str:
    """A closed issue that threads follow: each hears once who closed it and how (workers/followup/notices.py)."""
    if event != "issues" or action != "closed":
        return ""
    from workers.followup import notices

    return notices.on_event(rt, event, action, payload, original)


def _duplicate_original(gh: GitHubSettings, folder: Any, payload: dict[str, Any]) -> int | None:
    """A duplicate's original: what Atlas recorded when it closed it, else a "Duplicate of #N" comment, else (closed in
    GitHub's UI) the issue its last MarkedAsDuplicateEvent names, asked once (workers/followup/marked_duplicate.py)."""
    from workers.followup import marked_duplicate, notices

    issue = payload.get("issue") or {}
    if issue.get("state_reason") != "duplicate" or not isinstance(issue.get("number"), int):
        return None
    store = Store(folder)
    try:
        stored = store.exported(int(issue["number"])) or {}
    finally:
        store.close()
    found = stored.get("duplicate_of") or notices.duplicate_in(stored.get("comments") or [])
    if not found:
        found = marked_duplicate.original(gh, folder, int(issue["number"]))
    return int(found) if found else None


def _cited_issue(rt: Any, event: str, payload: dict[str, Any]) -> str:
    """An issue an answer cited whose state changed: its thread hears once (workers/knowledge/changes.py)."""
    number = (payload.get("issue") or {}).get("number")
    if event != "issues" or not isinstance(number, int):
        return ""
    from workers.knowledge import changes

    return changes.check(rt, ("issue",), {f"issue:{number}"})


def _push(gh: GitHubSettings, folder: Any, payload: dict[str, Any]) -> str:
    from atlas import github_client
    from datasets.github.code import sync_code
    from datasets.github.docs import sync_docs
    from datasets.github.fetch import Fetcher, kept_open
    from datasets.sync_progress import Silent
    from datasets.tracker_db import ensure_db

    branch = (payload.get("repository") or {}).get("default_branch")
    if payload.get("ref") != f"refs/heads/{branch}":
        return "ignored: push to another branch"
    store = Store(folder)
    try:
        roots = store.get("docs_roots") or ["docs"]
        touched = [
            path
            for commit in payload.get("commits") or []
            for kind in ("added", "modified", "removed")
            for path in commit.get(kind) or []
        ]
        # the folders read: the docs roots and ATLAS_SYNC_CODE's ("" is the whole repository)
        watched = [root.rstrip("/") + "/" for root in roots] + [p.rstrip("/") + "/" if p else "" for p in gh.code_paths]
        if touched and not any(path.startswith(folder) for path in touched for folder in watched):
            return "ignored: no synced docs or code changed"
        fetch = Fetcher(github_client.client(gh), store, gh.repo, Silent(), wait=False)
        with kept_open(fetch.client):  # one connection for the commit, the trees and the changed blobs
            written, removed = sync_docs(fetch, store, gh.owner, gh.name, roots, gh.web_url)
            code = sync_code(fetch, store, gh.owner, gh.name, gh.code_paths, gh.web_url)  # changed blobs only (#27)
    finally:
        store.close()
    ensure_db(folder)
    return f"docs: {written} written, {removed} removed; code: {code[0]} written, {code[1]} removed"


def periodic_sync(repo: str | None = None) -> str:
    """The backstop sync of `repo` (None: the first repository): incremental, never two at once, and the next one
    scheduled while the repository is served."""
    from atlas import github_client
    from datasets.github.sync import sync
    from datasets.sync_progress import Silent
    from workers.process import repo_parts, runtime

    rt: Any = runtime.current()
    if rt.settings.github is None:
        return "no repository"
    if repo is not None and repo_parts.served(rt, repo) is None:
        return f"stopped: {repo} is not served any more"
    rt = repo_parts.for_repo(rt, repo)
    gh = rt.settings.github
    try:
        with sync_lock.held(rt.conn, gh.repo) as mine:  # a dead worker's lapses in seconds, not the job's hour
            if not mine:
                return "skipped: another sync is running"
            report = sync(github_client.client(gh), gh, rt.settings.data_dir, wait=False, progress=Silent())
            caught = [] if report.stopped else _catch_up(rt, gh.repo, rt.settings.data_dir)
        if report.stopped:
            log.warning("periodic sync of %s stopped: %s", gh.repo, report.stopped)
        from workers.knowledge import changes

        told = changes.check(rt)  # what the sync changed that an answer cited
        started = f"; triage started for {', '.join(f'#{n}' for n in caught)}" if caught else ""
        synced = f"synced: {report.requests} requests, {report.not_modified} not modified{started}"
        return synced + told + _recalibrate(rt, gh.repo, "sync", "", False)  # what a stopped one kept is served
    finally:
        schedule(rt.conn, Queue(rt.settings.queue_name, connection=rt.conn), gh, force=True)


def _catch_up(rt: Any, repo: str, folder: Any) -> list[int]:
    """The issues whose `issues.opened` never arrived get their triage now (workers/new_issues/catch_up.py)."""
    from workers.new_issues import catch_up

    return catch_up.catch_up(rt, repo, folder)


def schedule(conn: redis.Redis, queue: Queue, gh: GitHubSettings, *, force: bool = False) -> bool:
    """Keep one chain of periodic syncs per repository: True when this call scheduled the next one."""
    interval = max(gh.sync_interval_seconds, 1)
    marker = f"atlas:github:sync-scheduled:{gh.repo}"
    if force:
        conn.set(marker, "1", ex=interval * 2)
    elif not conn.set(marker, "1", nx=True, ex=interval * 2):
        return False
    queue.enqueue_in(timedelta(seconds=interval), periodic_sync, gh.repo, job_timeout=SYNC_LOCK_SECONDS)
    return True
