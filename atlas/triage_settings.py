"""The triage inbox's settings (issue 24): where its cards go, what each action does, whom it skips.

`ATLAS_TRIAGE_ACTIONS` is `duplicates=draft,labels=draft,reply=shadow`: each action is `off` (not
computed for a card), `shadow` (recorded in the run, nothing posted), `draft` (its own Approve and
Reject on the card) or, for labels only, `auto` (applied without a click). With a triage channel and
no `ATLAS_TRIAGE_ACTIONS` every action is `draft`; with no channel triage is off. `auto` applies only
the labels named in `ATLAS_TRIAGE_AUTO_LABELS`, and each must have earned it in the last backtest
(workers/triage/autonomy.py): `atlas worker` and `atlas serve` refuse to start otherwise, with the figures
(atlas/cli/triage.py `check_autonomy`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from atlas.errors import ConfigError

Action = Literal["duplicates", "labels", "reply"]
Mode = Literal["off", "shadow", "draft", "auto"]
ACTIONS: tuple[Action, ...] = ("duplicates", "labels", "reply")
MODES: tuple[Mode, ...] = ("off", "shadow", "draft", "auto")


@dataclass(frozen=True)
class TriageSettings:
    """Where triage cards go and what each suggestion becomes."""

    slack_channel: str | None = None  # ATLAS_TRIAGE_CHANNEL
    discord_channel: str | None = None  # ATLAS_DISCORD_TRIAGE_CHANNEL
    modes: dict[Action, Mode] = field(default_factory=lambda: dict.fromkeys(ACTIONS, "draft"))
    auto_labels: tuple[str, ...] = ()  # ATLAS_TRIAGE_AUTO_LABELS: the labels `labels=auto` applies unasked
    skip_writers: bool = True  # ATLAS_TRIAGE_SKIP_WRITERS: issues opened by OWNER, MEMBER or COLLABORATOR
    # With a model: the agent's budget for one issue (capped at a mention's ATLAS_MAX_STEPS / ATLAS_MAX_TOKENS)
    max_steps: int = 4  # ATLAS_TRIAGE_MAX_STEPS: model calls, the last one with tools off
    max_tokens: int = 30_000  # ATLAS_TRIAGE_MAX_TOKENS: input and output tokens of all of them
    rate: int = 30  # ATLAS_TRIAGE_RATE: new issues of one repository triaged in any hour; the rest go to a digest
    proposal_rate: int = 10  # ATLAS_MCP_PROPOSAL_RATE: propose_action cards one MCP client may start in any hour

    @property
    def enabled(self) -> bool:
        """No channel: triage off."""
        return bool(self.slack_channel or self.discord_channel)

    @property
    def platform(self) -> Literal["slack", "discord"] | None:
        """Where the one card of an issue lives: Slack's channel when both are set."""
        return "slack" if self.slack_channel else "discord" if self.discord_channel else None

    @property
    def channel(self) -> str | None:
        return self.slack_channel or self.discord_channel

    def mode(self, action: Action) -> Mode:
        return self.modes.get(action, "draft")

    def answer_settings(self) -> list[object]:
        """What changes a triage, for `Settings.fingerprint`: a web process and a worker that differ here disagree."""
        return [
            self.slack_channel,
            self.discord_channel,
            sorted(self.modes.items()),
            list(self.auto_labels),
            self.skip_writers,
            self.max_steps,
            self.max_tokens,
        ]


def parse_actions(raw: str | None) -> dict[Action, Mode]:
    """`duplicates=draft,labels=auto,reply=shadow`; unnamed actions are `draft`."""
    modes: dict[Action, Mode] = dict.fromkeys(ACTIONS, "draft")
    for part in (raw or "").split(","):
        if not part.strip():
            continue
        name, _, value = (p.strip().lower() for p in part.partition("="))
        if name not in ACTIONS:
            raise ConfigError(f"ATLAS_TRIAGE_ACTIONS: unknown action {name!r}; the actions are {', '.join(ACTIONS)}")
        if value not in MODES:
            raise ConfigError(
                f"ATLAS_TRIAGE_ACTIONS: {name}={value!r}; a mode is one of off, shadow, draft (or auto for labels)"
            )
        if value == "auto" and name != "labels":
            raise ConfigError(
                f"ATLAS_TRIAGE_ACTIONS: {name}=auto is refused: closing and commenting are never automatic"
            )
        modes[name] = value
    return modes


def triage_from_env(
    get: Callable[[str], str | None], flag: Callable[[str, bool], bool], positive: Callable[[str, float, type], Any]
) -> TriageSettings:
    """The triage block of `Settings.from_env` (`positive(name, default, int)`: above 0, else a ConfigError)."""
    modes = parse_actions(get("ATLAS_TRIAGE_ACTIONS"))
    auto = tuple(x.strip() for x in (get("ATLAS_TRIAGE_AUTO_LABELS") or "").split(",") if x.strip())
    if modes["labels"] == "auto" and not auto:
        raise ConfigError(
            "ATLAS_TRIAGE_ACTIONS has labels=auto but ATLAS_TRIAGE_AUTO_LABELS names no label to apply unasked"
        )
    return TriageSettings(
        slack_channel=get("ATLAS_TRIAGE_CHANNEL"),
        discord_channel=get("ATLAS_DISCORD_TRIAGE_CHANNEL"),
        modes=modes,
        auto_labels=auto if modes["labels"] == "auto" else (),
        skip_writers=flag("ATLAS_TRIAGE_SKIP_WRITERS", True),
        max_steps=int(positive("ATLAS_TRIAGE_MAX_STEPS", TriageSettings.max_steps, int)),
        max_tokens=int(positive("ATLAS_TRIAGE_MAX_TOKENS", TriageSettings.max_tokens, int)),
        rate=int(positive("ATLAS_TRIAGE_RATE", TriageSettings.rate, int)),
        proposal_rate=int(positive("ATLAS_MCP_PROPOSAL_RATE", TriageSettings.proposal_rate, int)),
    )
