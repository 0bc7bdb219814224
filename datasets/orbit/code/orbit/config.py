"""Built-in defaults of orbit.toml and the checks run at startup."""

from __future__ import annotations

from dataclasses import dataclass

from orbit.errors import ConfigInvalid

DEFAULT_LEASE_SECONDS = 60
DEFAULT_HEARTBEAT_SECONDS = 15
DEFAULT_MAX_PAYLOAD_KB = 256


@dataclass(frozen=True)
class WorkerConfig:
    """The [worker] section."""

    concurrency: int = 8
    lease_seconds: int = DEFAULT_LEASE_SECONDS
    heartbeat_seconds: int = DEFAULT_HEARTBEAT_SECONDS
    prefetch: int = 1

    def check(self) -> None:
        """Refuse a heartbeat that could never keep a lease alive (ORB-1801)."""
        if self.heartbeat_seconds >= self.lease_seconds:
            raise ConfigInvalid(
                f"heartbeat_seconds must be less than lease_seconds "
                f"({self.heartbeat_seconds} >= {self.lease_seconds})"
            )


@dataclass(frozen=True)
class RetryConfig:
    """The [retries] section."""

    max_attempts: int = 3
    backoff: str = "exponential"
    base_delay_seconds: float = 2.0
    max_backoff_seconds: float = 600.0
    jitter: bool = True
