"""Failures sorted by whose fault they are, mapped from library exceptions where they enter."""

from __future__ import annotations

from atlas.errors import AtlasError


class ModelUnavailable(AtlasError):
    """The model API could not be reached or kept failing after the SDK's retries (transient)."""


class ModelMalformed(ModelUnavailable):
    """The model API answered 200 with something that is not a Response (a proxy's page, a broken
    server): retried like an outage, then reported as what it is."""


class ModelRejected(AtlasError):
    """The model API refused the request (bad key, bad request): retrying will not help."""


class BudgetSpent(AtlasError):
    """The run's working seconds ran out while a model call was in flight (it was given no longer): a
    budget stop, like ContextFull, not an outage of the model API."""


class ContextFull(AtlasError):
    """Even after clearing and compaction the request does not fit the window: a budget stop."""


class PairingBroken(AtlasError):
    """A transcript transform broke call/output pairing: a bug, reported as an internal error."""


class StoppedByUser(AtlasError):
    """The person pressed stop on the run's progress in Slack: the run ends, nothing more is posted."""


class DeliveryFailed(AtlasError):
    """Delivering the answer or an approval card broke for a reason other than a Slack outage (which the
    surface waits out itself); the job fails so that RQ retries it."""


class RunNotFound(AtlasError, LookupError):
    """The run id is unknown or its record expired."""


class DeliveryLost(AtlasError):
    """Slack did not take the delivery within its budget, or refused it for good."""

    def __init__(self, reason: str, *, transient: bool) -> None:
        super().__init__(reason)
        self.transient = transient


class NoticeUndelivered(AtlasError):
    """A subscribed thread's close or release notice could not be posted (the platform failed); the webhook
    job fails so that RQ retries it, and only the notices not yet posted are tried again."""


class LeaseLost(AtlasError):
    """Another job took the run's lease while this one stalled past its TTL (workers/runs/lease.py): that job
    works the run now, so this one stops before its next save or post, leaving the run's state and thread to it."""


class SpendCapReached(AtlasError):
    """A model call would take the day's spend past a cap (workers/agent/spend.py): refused before it is made.
    `which`: "install" (ATLAS_DAILY_COST_LIMIT) or "channel" (atlas.toml's daily_cost_limit); `resets_at`: the
    next UTC midnight (epoch seconds)."""

    def __init__(self, which: str, limit: float, resets_at: float) -> None:
        super().__init__(f"the {which}'s daily spend cap of ${limit:.2f} is reached")
        self.which, self.limit, self.resets_at = which, limit, resets_at
