"""What a GitHub webhook means for the triage inbox, once the store has applied it.

`issues.opened` starts the issue's one triage run (claim.py: by repository and number, so a
redelivery, `edited` or `reopened` starts nothing), at most ATLAS_TRIAGE_RATE a repository in any hour
(rates.py; the rest are named in the channel's digest, digest.py); issues opened by someone with write access are
skipped unless ATLAS_TRIAGE_SKIP_WRITERS is off, and so are issues Atlas filed itself (its hidden marker, or
its own App). `issues.closed`, `issues.labeled`, `issues.transferred`, `issues.deleted` and a comment by someone
with write access (writers.py: a private member arrives as CONTRIBUTOR) end a card nobody clicked yet
(maintainers.py); a label set as the issue's author (an issue template's) or by a bot (a labeler action, a stale
bot) does not.
"""

from __future__ import annotations

from typing import Any

from workers.new_issues import claim, digest, learning, maintainers, writers
from workers.parts import WorkerParts
from workers.runs.state import Origin
from workers.runs.triage_record import TriageRecord

ENDING = {"closed": "closed", "labeled": "labelled", "transferred": "transferred", "deleted": "deleted"}
ATLAS_MARKER = "<!-- atlas:"  # the hidden line at the end of what Atlas files (tools/github/tracker.py `marker`)


def filed_by_atlas(rt: WorkerParts, issue: dict[str, Any]) -> bool:
    """An issue Atlas filed (a thread's "File as GitHub issue"): it arrives as `issues.opened` like any other."""
    app = issue.get("performed_via_github_app")
    gh = rt.settings.github
    if isinstance(app, dict) and gh is not None and gh.app_id and str(app.get("id")) == str(gh.app_id):
        return True
    return ATLAS_MARKER in str(issue.get("body") or "")


def on_event(
    rt: WorkerParts, repo: str, event: str, action: str, payload: dict[str, Any], fingerprint: str | None = None
) -> str:
    """'' when triage has nothing to do with this delivery, else a short note for the job's result.
    `fingerprint`: the settings of the web process that took the delivery (None: this worker's own)."""
    triage = rt.settings.triage
    if not triage.enabled or event not in ("issues", "issue_comment"):
        return ""
    issue = payload.get("issue") or {}
    if "pull_request" in issue or not isinstance(issue.get("number"), int):
        return ""
    number = int(issue["number"])
    sender = str((payload.get("sender") or {}).get("login") or "someone")
    if event == "issues" and action == "opened":
        if filed_by_atlas(rt, issue):
            return f"; triage skipped: #{number} was filed by Atlas"
        association = str(issue.get("author_association") or "")
        if triage.skip_writers and writers.is_writer(rt, repo, association, issue.get("user")):
            return f"; triage skipped: #{number} was opened by someone with write access ({association})"
        record = TriageRecord(
            repo=repo,
            issue=number,
            title=str(issue.get("title") or ""),
            author=str((issue.get("user") or {}).get("login") or ""),
            url=issue.get("html_url"),
        )
        # one card, one platform; in the repository's own channel when ATLAS_TRIAGE_CHANNELS names one (issue 38)
        origin = Origin(kind=triage.platform or "slack", channel=rt.settings.org.triage_channel(repo, triage.channel))
        run_id, started = claim.start(
            rt.conn, rt.settings.queue_name, record, origin, fingerprint or rt.settings.fingerprint, limit=triage.rate
        )
        if not run_id:  # over ATLAS_TRIAGE_RATE: no card of its own, named in the channel's digest
            return f"; triage held back: #{number} is over ATLAS_TRIAGE_RATE" + digest.tell(rt, claim.repo_scope(repo))
        return f"; triage run {run_id} " + ("started" if started else "already claimed")
    found = claim.run_of(rt.conn, repo, number)
    if found is None:
        return ""
    run_id = found
    author = str((issue.get("user") or {}).get("login") or "")
    if event == "issues" and action == "labeled" and (sender == author or learning.is_bot(payload)):
        return ""  # labels an issue template set (as its author), or a bot's: not a maintainer's decision
    if event == "issues" and action in ENDING:
        what = ENDING[action]
        return (
            f"; triage card ended ({what})"
            if maintainers.acted(rt.conn, rt.settings.queue_name, run_id, what, sender)
            else ""
        )
    if event == "issue_comment" and action == "created":
        comment = payload.get("comment") or {}
        if not writers.is_writer(rt, repo, str(comment.get("author_association") or ""), comment.get("user")):
            return ""
        who = str((comment.get("user") or {}).get("login") or sender)
        ended = maintainers.acted(
            rt.conn, rt.settings.queue_name, run_id, "answered", who, comment=str(comment.get("body") or "")
        )
        return "; triage card ended (answered)" if ended else ""
    return ""
