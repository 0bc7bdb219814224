"""What a GitHub webhook means for the triage inbox, once the store has applied it.

`issues.opened` starts the issue's one triage run (claim.py: by repository and number, so a
redelivery, `edited` or `reopened` starts nothing), at most ATLAS_TRIAGE_RATE a repository in any hour
(rates.py; the rest are named in the channel's digest, digest.py); issues opened by someone with write access are
skipped unless ATLAS_TRIAGE_SKIP_WRITERS is off. `issues.closed`, `issues.labeled` and a comment by
an OWNER, MEMBER or COLLABORATOR end a card nobody clicked yet (maintainers.py); a label set as the
issue's author (an issue template's) does not.
"""

from __future__ import annotations

from typing import Any

from workers.inbox import claim, digest, maintainers
from workers.parts import WorkerParts
from workers.runs.state import Origin
from workers.runs.triage_record import TriageRecord


def on_event(rt: WorkerParts, repo: str, event: str, action: str, payload: dict[str, Any], fingerprint: str | None = None) -> str:
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
        if triage.skip_writers and str(issue.get("author_association") or "") in maintainers.WRITERS:
            return f"; triage skipped: #{number} was opened by a {issue.get('author_association')}"
        record = TriageRecord(repo=repo, issue=number, title=str(issue.get("title") or ""),
                              author=str((issue.get("user") or {}).get("login") or ""), url=issue.get("html_url"))
        origin = Origin(kind=triage.platform or "slack", channel=triage.channel)  # one card, one platform
        run_id, started = claim.start(rt.conn, rt.settings.queue_name, record, origin, fingerprint or rt.settings.fingerprint,
                                      limit=triage.rate)
        if not run_id:  # over ATLAS_TRIAGE_RATE: no card of its own, named in the channel's digest
            return f"; triage held back: #{number} is over ATLAS_TRIAGE_RATE" + digest.tell(rt, claim.repo_scope(repo))
        return f"; triage run {run_id} " + ("started" if started else "already claimed")
    found = claim.run_of(rt.conn, repo, number)
    if found is None:
        return ""
    run_id = found
    if event == "issues" and action == "labeled" and sender == str((issue.get("user") or {}).get("login") or ""):
        return ""  # labels an issue template set, applied as its author: not a maintainer's decision
    if event == "issues" and action in ("closed", "labeled"):
        what = "closed" if action == "closed" else "labelled"
        return f"; triage card ended ({what})" if maintainers.acted(rt.conn, rt.settings.queue_name, run_id, what, sender) else ""
    if event == "issue_comment" and action == "created":
        comment = payload.get("comment") or {}
        if str(comment.get("author_association") or "") not in maintainers.WRITERS:
            return ""
        who = str((comment.get("user") or {}).get("login") or sender)
        ended = maintainers.acted(rt.conn, rt.settings.queue_name, run_id, "answered", who, comment=str(comment.get("body") or ""))
        return "; triage card ended (answered)" if ended else ""
    return ""
