"""What the core's worker-side steps are handed: the parts a worker process built once.

The worker's composition root (workers/process/runtime.py, `Runtime`) satisfies this; the approval gate and
the settings check take it instead of importing the root, so no arrow runs from the core back up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import redis

    from atlas.settings import Settings
    from tools.registry import Registry
    from tools.tracker import Tracker
    from workers.agent.model import Model
    from workers.chat import ChatPlatform
    from workers.runs.state import Platform
    from workers.runs.store import RunStore
    from workers.triage.engine import Triage


class WorkerParts(Protocol):
    """Redis, the run store, the tools and the tracker of this worker, and its chat platforms."""

    @property
    def settings(self) -> Settings: ...

    @property
    def conn(self) -> redis.Redis: ...

    @property
    def store(self) -> RunStore: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def tracker(self) -> Tracker: ...

    @property
    def model(self) -> Model:
        """The configured model (the offline one when `settings.offline`)."""
        ...

    def triage_engine(self) -> Triage:
        """The offline triage of the data folder, kept between jobs while its tracker is unchanged."""
        ...

    def platform_for(self, platform: Platform) -> ChatPlatform | None:
        """The chat platform a run of this kind reports on, or None (the CLI, or not configured here)."""
        ...
