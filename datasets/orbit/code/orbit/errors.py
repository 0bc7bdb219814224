"""Orbit's exceptions. Each logged failure carries a stable ORB-xxxx code."""

from __future__ import annotations


class OrbitError(Exception):
    """Base class of every error Orbit raises; `code` is the ORB-xxxx code it is logged with."""

    code = "ORB-0000"


class LeaseExpired(OrbitError):
    code = "ORB-1101"


class LeaseStolen(OrbitError):
    code = "ORB-1102"


class HeartbeatFailed(OrbitError):
    code = "ORB-1103"


class RetriesExhausted(OrbitError):
    code = "ORB-1201"


class PermanentError(OrbitError):
    """Raise it from a job to dead-letter the job at once, without further attempts."""

    code = "ORB-1202"


class BackoffClamped(OrbitError):
    code = "ORB-1203"


class ConfigInvalid(OrbitError):
    code = "ORB-1801"
