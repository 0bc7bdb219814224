"""The web process's half of "File as GitHub issue": claim the answer and queue its one filing run.

The answer (by its run) is claimed and the filing run recorded in one script, as a triage run is by its issue
(workers/new_issues/claim.py `claim_run`), so a second click or a redelivered one starts nothing; a claimed filing still
`queued` is queued again, the repair after a lost enqueue. Kept apart from filing.py, the worker's half, so the web
process never loads the approval gate and the agent loop behind it.
"""

from __future__ import annotations

import uuid

import redis

from atlas.errors import AtlasError
from workers.followup import subscriptions as subs
from workers.new_issues.claim import claim_run
from workers.runs.filing_record import FilingRecord
from workers.runs.state import Origin, RunState
from workers.runs.store import RUN_TTL_SECONDS

CLAIM_TTL_SECONDS = RUN_TTL_SECONDS  # as long as the answer's run is kept: its button files at most once


def claim_key(source_run: str) -> str:
    return f"atlas:file-issue:{source_run}"


class WhichRepository(AtlasError):
    """The answer is about none or several of the repositories served: where to file it is not guessed."""

    def __init__(self, repos: tuple[str, ...]) -> None:
        super().__init__(", ".join(repos))
        self.repos = repos


def repository_of(repos: tuple[str, ...], source: RunState) -> str | None:
    """Where an answer's issue is filed: its run's repository (its channel's), else the one repository every issue
    it cites belongs to (`owner/b#42`); None when one repository is served (the install's). WhichRepository when
    several are served and the answer is about none of them or several."""
    if len(repos) < 2:
        return None
    if source.repo:
        return source.repo
    cited = {s.rpartition("#")[0].lower() for s in source.sources if "/" in s.rpartition("#")[0]}
    named = [repo for repo in repos if repo.lower() in cited]
    if len(named) == 1:
        return named[0]
    raise WhichRepository(repos)


def start(
    conn: redis.Redis, queue_name: str, source: RunState, clicker: str, repo: str | None = None
) -> tuple[str, bool]:
    """Claim the answer of `source` and queue its filing run in `repo` (`repository_of`); (filing run id, whether
    this call started it)."""
    place = subs.place_of(source)
    if place is None:
        raise ValueError(f"run {source.id} has no thread to file from")
    origin = Origin(
        kind=place.kind,
        user=clicker,
        channel=source.origin.channel if place.kind == "slack" else place.channel,
        thread_ts=place.thread_ts,
        message_ts=place.thread_ts,
        team=place.team,
    )
    run = RunState(
        id=f"file-{uuid.uuid4().hex[:12]}",
        question=f"file an issue from run {source.id}",
        origin=origin,
        repo=repo,
        filing=FilingRecord(source_run=source.id, repo=repo),
    )
    return claim_run(conn, queue_name, claim_key(source.id), run, CLAIM_TTL_SECONDS)
