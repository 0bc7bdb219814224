"""The exceptions of Atlas's floor (settings, Redis, clients), in one place below everything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Why a GitHub request failed (atlas/github_client.py maps githubkit's errors to these).
GitHubFailureKind = Literal["auth", "permission", "not_found", "invalid", "rate_limited", "unavailable"]


class ConfigError(ValueError):
    """A setting is missing or malformed: the operator's fault, reported before anything starts."""


class EncodingIntegrityError(RuntimeError):
    """The packaged BPE ranks do not match the published hash: refuse to count with them."""


class EmbeddedRedisError(RuntimeError):
    """The embedded server could not be started; the message says where its log is."""


class GitHubConfigError(ValueError):
    """No credentials, or credentials githubkit refuses: the operator's to fix before anything runs."""


@dataclass
class GitHubFailure(Exception):
    """A GitHub request that failed, as a kind and a sentence a maintainer can act on."""

    kind: GitHubFailureKind
    message: str
    status: int | None = None
    retry_after: float | None = None

    def __str__(self) -> str:
        return self.message


class Unavailable(Exception):
    """A service Atlas needs (Slack's Web API, the model API) cannot be reached: one line for the operator."""
