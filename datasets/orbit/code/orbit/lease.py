"""Leases: a worker holds a job for lease_seconds and must renew the lease before it runs out.

The heartbeat thread of each worker child calls `renew_leases` every heartbeat_seconds; a lease
that is not renewed in time expires (ORB-1101) and the broker hands the job to another worker.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from orbit.errors import HeartbeatFailed, LeaseStolen


@dataclass
class Lease:
    """One job reserved by one worker child until `expires_at` (a monotonic broker timestamp)."""

    job_id: str
    token: str
    expires_at: float
    renewals: int = field(default=0)

    def remaining(self, now: float) -> float:
        return self.expires_at - now


def renew_lease(broker, lease: Lease, lease_seconds: int, now: float) -> Lease:
    """Push one lease's expiry out to now + lease_seconds, if this worker still holds it.

    The broker compares `lease.token` atomically: a lease another worker took over in the
    meantime is not renewed but reported as stolen (ORB-1102).
    """
    if not broker.extend(lease.job_id, lease.token, now + lease_seconds):
        raise LeaseStolen(f"job {lease.job_id} is leased by another worker")
    lease.expires_at = now + lease_seconds
    lease.renewals += 1
    return lease


class Heartbeat(threading.Thread):
    """The heartbeat thread of a worker child: renews the running job's lease and the prefetched ones."""

    def __init__(self, broker, leases: dict[str, Lease], lease_seconds: int, heartbeat_seconds: int) -> None:
        super().__init__(name="orbit-heartbeat", daemon=True)
        self.broker = broker
        self.leases = leases
        self.lease_seconds = lease_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.heartbeat_seconds):
            self.renew_leases(time.monotonic())

    def renew_leases(self, now: float) -> None:
        """Renew every lease this child holds; a broker that cannot be reached is ORB-1103."""
        for lease in list(self.leases.values()):
            try:
                renew_lease(self.broker, lease, self.lease_seconds, now)
            except ConnectionError as exc:
                raise HeartbeatFailed(f"could not renew the lease of job {lease.job_id}: {exc}") from exc

    def stop(self) -> None:
        self.stopped.set()
