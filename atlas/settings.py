"""Configuration, read once from the environment at an entry point into a frozen object.

Everything below the entry points takes what it needs as arguments; nothing else reads os.environ.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO_ROOT / "datasets" / "orbit"
DEFAULT_MODEL = "gpt-6-luna"


class ConfigError(ValueError):
    """A setting is missing or malformed: the operator's fault, reported before anything starts."""


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens."""

    input: float
    cached_input: float
    output: float


DEFAULT_PRICES: dict[str, Price] = {
    "gpt-6-luna": Price(input=0.10, cached_input=0.01, output=0.50),
}


@dataclass(frozen=True)
class Settings:
    """Every knob Atlas has, with its default. Built by `Settings.from_env` at the edge."""

    data_dir: Path = DEFAULT_DATA
    home: Path = REPO_ROOT / ".atlas"
    redis_url: str | None = None
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    model: str = DEFAULT_MODEL
    summary_model: str | None = None
    model_timeout_seconds: float = 60.0
    model_max_retries: int = 2
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    queue_name: str = "atlas"
    slack_bot_token: str | None = None
    slack_signing_secret: str | None = None
    slack_app_token: str | None = None
    slack_api_url: str | None = None
    slash_command: str = "/orbit"
    approvers: tuple[str, ...] = ()
    approver_group: str | None = None
    approval_ttl_seconds: int = 24 * 3600
    asker_may_approve: bool = False  # opt-in: every asker may decide their own run's actions
    docs_base_url: str | None = None
    issues_base_url: str | None = None
    port: int = 3000
    worker_heartbeat_ttl: int = 20
    worker_maintenance_seconds: int = 30
    discord_application_id: str | None = None
    discord_public_key: str | None = None  # hex Ed25519 key that signs interactions
    discord_bot_token: str | None = None
    discord_api_url: str | None = None  # REST base URL (a stand-in in tests); Discord's v10 API by default
    discord_approvers: tuple[str, ...] = ()  # Discord user ids who may approve actions
    discord_approver_role: str | None = None  # a role id whose members may approve

    @property
    def lookup_command(self) -> str:
        """The lookup command's name without the slash (`orbit`): Discord's command name."""
        return self.slash_command.lstrip("/").lower()[:32] or "orbit"

    @property
    def offline(self) -> bool:
        """No key and no base URL: the built-in extractive model answers."""
        return not (self.openai_api_key or self.openai_base_url)

    @property
    def price(self) -> Price:
        """The configured model's price; zero offline or for a model with no known price."""
        if self.offline:
            return Price(0.0, 0.0, 0.0)
        return self.prices.get(self.model, Price(0.0, 0.0, 0.0))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read the environment once. Raises ConfigError with the variable's name on bad values."""
        env = os.environ if env is None else env

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        def number(name: str, default: float, kind: type = float) -> float:
            raw = get(name)
            if raw is None:
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ConfigError(f"{name} must be a number, got {raw!r}") from None

        def flag(name: str, default: bool) -> bool:
            raw = get(name)
            if raw is None:
                return default
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ConfigError(f"{name} must be true or false, got {raw!r}")

        prices = dict(DEFAULT_PRICES)
        model = get("ATLAS_MODEL") or DEFAULT_MODEL
        price_raw = get("ATLAS_PRICE")  # "input,cached_input,output" dollars per million tokens
        if price_raw:
            try:
                parts = [float(p) for p in price_raw.split(",")]
                prices[model] = Price(*parts)
            except (TypeError, ValueError):
                raise ConfigError(
                    f"ATLAS_PRICE must be 'input,cached_input,output' dollars per million tokens, got {price_raw!r}"
                ) from None
        approvers = tuple(u.strip() for u in (get("ATLAS_APPROVERS") or "").split(",") if u.strip())
        return cls(
            data_dir=Path(get("ATLAS_DATA") or DEFAULT_DATA).resolve(),
            home=Path(get("ATLAS_HOME") or REPO_ROOT / ".atlas").resolve(),
            redis_url=get("REDIS_URL"),
            openai_api_key=get("OPENAI_API_KEY"),
            openai_base_url=get("OPENAI_BASE_URL"),
            model=model,
            summary_model=get("ATLAS_SUMMARY_MODEL"),
            model_timeout_seconds=number("ATLAS_MODEL_TIMEOUT", 60.0),
            model_max_retries=int(number("ATLAS_MODEL_RETRIES", 2, int)),
            prices=prices,
            queue_name=get("ATLAS_QUEUE") or "atlas",
            slack_bot_token=get("SLACK_BOT_TOKEN"),
            slack_signing_secret=get("SLACK_SIGNING_SECRET"),
            slack_app_token=get("SLACK_APP_TOKEN"),
            slack_api_url=get("SLACK_API_URL"),
            slash_command=get("ATLAS_SLASH_COMMAND") or "/orbit",
            approvers=approvers,
            approver_group=get("ATLAS_APPROVER_GROUP"),
            approval_ttl_seconds=int(number("ATLAS_APPROVAL_TTL", 24 * 3600, int)),
            asker_may_approve=flag("ATLAS_ASKER_MAY_APPROVE", False),
            docs_base_url=get("ATLAS_DOCS_URL"),
            issues_base_url=get("ATLAS_ISSUES_URL"),
            port=int(number("PORT", 3000, int)),
            worker_heartbeat_ttl=int(number("ATLAS_WORKER_HEARTBEAT_TTL", 20, int)),
            worker_maintenance_seconds=int(number("ATLAS_WORKER_MAINTENANCE", 30, int)),
            discord_application_id=get("DISCORD_APPLICATION_ID"),
            discord_public_key=get("DISCORD_PUBLIC_KEY"),
            discord_bot_token=get("DISCORD_BOT_TOKEN"),
            discord_api_url=get("DISCORD_API_URL"),
            discord_approvers=tuple(u.strip() for u in (get("ATLAS_DISCORD_APPROVERS") or "").split(",") if u.strip()),
            discord_approver_role=get("ATLAS_DISCORD_APPROVER_ROLE"),
        )
