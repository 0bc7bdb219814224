"""The exceptions of Atlas's floor (settings, Redis, clients), in one place below everything."""

from __future__ import annotations


class ConfigError(ValueError):
    """A setting is missing or malformed: the operator's fault, reported before anything starts."""
