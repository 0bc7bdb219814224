"""The exceptions of Atlas's floor (settings, Redis, clients), in one place below everything."""

from __future__ import annotations


class ConfigError(ValueError):
    """A setting is missing or malformed: the operator's fault, reported before anything starts."""


class EncodingIntegrityError(RuntimeError):
    """The packaged BPE ranks do not match the published hash: refuse to count with them."""


class EmbeddedRedisError(RuntimeError):
    """The embedded server could not be started; the message says where its log is."""


class GitHubConfigError(ValueError):
    """No credentials, or credentials githubkit refuses: the operator's to fix before anything runs."""
