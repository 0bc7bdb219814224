"""The tools one job runs with (workers/agent/ports.py `Tools`), as the worker's runtime hands them to the agent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import redis

from tools import Corpus
from tools.context import ToolContext
from tools.registry import Registry
from tools.repo_scope import RepoScope
from tools.tracker import Tracker
from workers.agent.stash import RedisStash
from workers.knowledge.entries import RedisSolvedThreads
from workers.runs.state import RunState


@dataclass(frozen=True)
class JobTools:
    """The tools of one job (workers/agent/ports.py `Tools`): the registry, the corpus opened for the job,
    the tracker, and a stash in Redis for cut results (the loop adds it to read calls)."""

    registry: Registry
    corpus: Corpus
    conn: redis.Redis
    tracker: Tracker
    scope: Callable[[str | None], RepoScope | None] = lambda channel: None  # several repositories (issue 38)

    def context(self, run: RunState) -> ToolContext:
        return ToolContext(
            corpus=self.corpus,
            run_id=run.id,
            tracker=self.tracker,
            solved=RedisSolvedThreads(self.conn),
            scope=self.scope(run.origin.channel),
        )

    def stash(self, run: RunState, page_tokens: int) -> RedisStash:
        return RedisStash(self.conn, run.id, page_tokens)
