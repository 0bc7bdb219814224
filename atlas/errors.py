"""The root of Atlas's exceptions and the floor's own (settings, Redis, clients), below everything.

Every error Atlas raises on purpose is an `AtlasError`; each package keeps its own beside its code and
subclasses this root, keeping the builtin base its callers catch (ValueError, RuntimeError, ...):

    AtlasError
      the floor (here): ConfigError, GitHubConfigError, EncodingIntegrityError, EmbeddedRedisError,
          GitHubFailure, Unavailable (a service Atlas needs is down)
      the data: DatasetError (datasets/tracker_db.py)
      the tools: CalculationError, RegistryError, TrackerError, TrackerUnavailable > TrackerInDoubt,
          WriteTurnTimeout (tools/errors.py; a tool's failure itself is a value, `ToolError`)
      the core: ModelUnavailable > ModelMalformed, ModelRejected, BudgetSpent, ContextFull, PairingBroken,
          StoppedByUser, DeliveryFailed, DeliveryLost, RunNotFound (workers/errors.py)
      the chat platforms: DiscordError (bot/discord/rest.py); a webhook payload's shape: Malformed
          (bot/github/payloads.py)

They are mapped where they reach a person: the `atlas` command in atlas/cli/failures.py (one line and an
exit code), a run's end in workers/jobs/runs.py; a tool's exception becomes a generic `ToolError` in
tools/dispatch.py. A private signal that never leaves its module (`_Unconfirmed`) need not join the tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Why a GitHub request failed (atlas/github_client.py maps githubkit's errors to these).
GitHubFailureKind = Literal["auth", "permission", "not_found", "invalid", "rate_limited", "unavailable"]


class AtlasError(Exception):
    """Base of the errors Atlas raises on purpose."""


class ConfigError(AtlasError, ValueError):
    """A setting is missing or malformed: the operator's fault, reported before anything starts."""


class EncodingIntegrityError(AtlasError, RuntimeError):
    """The packaged BPE ranks do not match the published hash: refuse to count with them."""


class EmbeddedRedisError(AtlasError, RuntimeError):
    """The embedded server could not be started; the message says where its log is."""


class GitHubConfigError(AtlasError, ValueError):
    """No credentials, or credentials githubkit refuses: the operator's to fix before anything runs."""


@dataclass
class GitHubFailure(AtlasError):
    """A GitHub request that failed, as a kind and a sentence a maintainer can act on."""

    kind: GitHubFailureKind
    message: str
    status: int | None = None
    retry_after: float | None = None

    def __str__(self) -> str:
        return self.message


class Unavailable(AtlasError):
    """A service Atlas needs (Slack's Web API, the model API) cannot be reached: one line for the operator."""
