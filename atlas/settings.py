"""Configuration, read once from the environment at an entry point into a frozen object.

Everything below the entry points takes what it needs as arguments; nothing else reads os.environ.
How a variable's text becomes a checked value is atlas/env_values.py; the blocks of the project, triage,
help channels and the console are atlas/*_settings.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from atlas import channel_config
from atlas.channel_config import ChannelsFile
from atlas.console_settings import ConsoleSettings, console_from_env
from atlas.env_values import EnvValues, assistant_prompts, cost_limit, mcp_token, redis_url, retention_days
from atlas.errors import ConfigError as ConfigError  # raised by from_env, so importable beside Settings
from atlas.help_settings import HelpSettings, help_from_env
from atlas.knowledge_settings import KnowledgeSettings, knowledge_from_env
from atlas.org_settings import OrgSettings, org_from_env, repo_project, repos_from_env, with_file
from atlas.prices import DEFAULT_PRICES, prices_of
from atlas.prices import Price as Price  # importable beside Settings, as before
from atlas.project_settings import ORBIT, REPO_ROOT, GitHubSettings, Project, repo_name_problem
from atlas.project_settings import project_from_env as _project_from_env
from atlas.run_limits import DEFAULT_WORKER_CONCURRENCY, TOOL_TIMEOUT_SECONDS, Budget, DraftBudget, worker_concurrency
from atlas.surface_settings import McpSettings, SlackTier, discord_public_key, mcp_from_env, slack_tier
from atlas.triage_settings import TriageSettings, triage_from_env

DISCORD_ASK_COMMAND = "atlas"  # `/atlas ask`; the lookup command is never named this (see lookup_command)

DEFAULT_DATA = REPO_ROOT / "datasets" / "orbit"
DEFAULT_MODEL = "gpt-6-luna"
DEFAULT_ASSISTANT_PROMPTS = ("What does ORB-1202 mean?", "Find duplicates of #143", "How do retries and backoff work?")


def _portable(path: Path) -> str:
    """A data folder inside the installation as a relative path, so one image installed under
    different roots (a web machine and a worker machine) gives the same fingerprint."""
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _secret() -> Any:
    """A field that holds a token or key: kept out of repr, so no log line or error can show it."""
    return field(default=None, repr=False)


@dataclass(frozen=True)
class Settings:
    """Every knob Atlas has, with its default. Built by `Settings.from_env` at the edge.

    Secrets are `repr=False` fields: printing or logging a Settings never shows them.
    """

    data_dir: Path = DEFAULT_DATA
    home: Path = REPO_ROOT / ".atlas"
    redis_url: str | None = _secret()  # may hold a password
    openai_api_key: str | None = _secret()
    openai_base_url: str | None = None
    model: str = DEFAULT_MODEL
    summary_model: str | None = None
    model_timeout_seconds: float = 60.0
    model_max_retries: int = 2
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    queue_name: str = "atlas"
    slack_bot_token: str | None = _secret()
    slack_signing_secret: str | None = _secret()
    slack_app_token: str | None = _secret()
    slack_api_url: str | None = None
    slack_tier: SlackTier = "marketplace"  # ATLAS_SLACK_TIER: the app's rate-limit tier for history reads
    slash_command: str = "/orbit"
    approvers: tuple[str, ...] = ()
    approver_group: str | None = None
    approval_ttl_seconds: int = 24 * 3600
    audit_retention_days: int = 90  # audit entries older than this are trimmed by worker maintenance; 0 keeps them all
    asker_may_approve: bool = False  # opt-in: every asker may decide their own run's actions
    docs_base_url: str | None = None
    issues_base_url: str | None = None
    assistant_prompts: tuple[str, ...] = DEFAULT_ASSISTANT_PROMPTS  # suggested in a new assistant thread
    port: int = 3000
    http_threads: int = 16  # waitress request threads per `atlas serve` process
    worker_heartbeat_ttl: int = 20
    worker_maintenance_seconds: int = 30
    worker_concurrency: int = DEFAULT_WORKER_CONCURRENCY  # runs one `atlas worker` process works at once (threads)
    budget: Budget = Budget()  # steps, working seconds, tokens, consecutive error steps per run
    draft: DraftBudget = DraftBudget()  # a "File as GitHub issue" draft by the model (workers/followup/model_draft.py)
    tool_timeout_seconds: float = TOOL_TIMEOUT_SECONDS
    semantic_docs: bool = True  # docs search ranks by meaning too, when the embedding model's package is installed
    slack_outage_seconds: float = 900.0  # how long an answer or approval card keeps being retried
    slack_retry_cap_seconds: float = 30.0  # the longest wait between two of those tries
    redis_retry_cap_seconds: float = 2.0  # workers and the bot's spool: the longest wait between reconnects
    # -- The project served and its tracker (GitHub issue 10). A separate block so other settings merge.
    project: Project = field(default_factory=lambda: ORBIT)
    github: GitHubSettings | None = None  # set: the GitHub tracker and a synced repository folder (the first one)
    org: OrgSettings = field(default_factory=OrgSettings)  # every repository served, each channel's (issue 38)
    discord_application_id: str | None = None
    discord_public_key: str | None = None  # hex Ed25519 key that signs interactions
    discord_bot_token: str | None = None
    discord_api_url: str | None = None  # REST base URL (a stand-in in tests); Discord's v10 API by default
    discord_approvers: tuple[str, ...] = ()  # Discord user ids who may approve actions
    discord_approver_role: str | None = None  # a role id whose members may approve
    mcp_token: str | None = _secret()  # ATLAS_MCP_TOKEN: the bearer token of /mcp on `atlas serve`; None: no /mcp
    mcp: McpSettings = field(default_factory=McpSettings)  # /mcp's public origins and credited name
    triage: TriageSettings = field(default_factory=TriageSettings)  # the triage inbox (atlas/triage_settings.py)
    help: HelpSettings = field(default_factory=HelpSettings)  # help channels (atlas/help_settings.py)
    console: ConsoleSettings = field(default_factory=ConsoleSettings)  # `/console/` (atlas/console_settings.py)
    knowledge: KnowledgeSettings = field(default_factory=KnowledgeSettings)  # watched answers, solved threads
    # -- Spend and per-channel settings (issue 38): ATLAS_CONFIG's atlas.toml (atlas/channel_config.py), which
    # wins for the channels it names (atlas/channel_plan.py), and the whole install's daily cap.
    channels: ChannelsFile = field(default_factory=ChannelsFile)
    daily_cost_limit: float | None = None  # ATLAS_DAILY_COST_LIMIT: USD per UTC day for every model call

    @property
    def lookup_command(self) -> str:
        """The Discord lookup command's name (`orbit`): ATLAS_SLASH_COMMAND without the slash, except that it
        never shares the ask command's name `atlas` (as ATLAS_GITHUB_REPO's default `/atlas` would): then it is
        the project's slug (`/rocket`), or `atlas-lookup` when that is `atlas` too."""
        name = self.slash_command.lstrip("/").lower()[:32] or "orbit"
        if name != DISCORD_ASK_COMMAND:
            return name
        slug = re.sub(r"[^a-z0-9_-]+", "-", self.project.name.lower()).strip("-")[:32]
        return slug if slug and slug != DISCORD_ASK_COMMAND else f"{DISCORD_ASK_COMMAND}-lookup"

    @property
    def repos(self) -> tuple[str, ...]:
        """The repositories configured (the GitHub block's alone when no list was read): () for the Orbit demo."""
        return self.org.repos or ((self.github.repo,) if self.github else ())

    @property
    def offline(self) -> bool:
        """No key and no base URL: the built-in extractive model answers."""
        return not (self.openai_api_key or self.openai_base_url)

    @property
    def answering_model(self) -> str:
        """What answers a run under these settings: the model's name, or "offline"."""
        return "offline" if self.offline else self.model

    def answer_settings(self) -> dict[str, Any]:
        """Every setting that changes an answer, with the API key only as a hash (see `fingerprint`)."""
        key = self.openai_api_key
        return {
            "model": self.answering_model,
            "summary_model": None if self.offline else (self.summary_model or self.model),
            "openai_base_url": self.openai_base_url,
            "openai_api_key_sha256": hashlib.sha256(key.encode()).hexdigest() if key else None,
            "price": [self.price.input, self.price.cached_input, self.price.output],
            "data_dir": _portable(self.data_dir),
            "docs_base_url": self.docs_base_url,
            "issues_base_url": self.issues_base_url,
            "budget": [
                self.budget.max_steps,
                self.budget.max_seconds,
                self.budget.max_tokens,
                self.budget.max_errors,
            ],
            "draft": [self.draft.max_tokens, self.draft.max_seconds],
            "tool_timeout_seconds": self.tool_timeout_seconds,
            "semantic_docs": self.semantic_docs,
            "project": [self.project.name, self.project.description],
            "tracker": [self.github.repo, self.github.api_url, self.github.api_version]
            if self.github
            else "demo",  # where approved actions write
            "triage": self.triage.answer_settings(),  # where cards go, what each action does, the triage budget
            **(
                {"channels": [[c.channel, *c.answer_settings()] for c in self.channels.channels]}
                if self.channels.channels
                else {}
            ),
            **({"org": [list(self.org.repos), sorted(self.org.channel_repos.items())]} if self.org.many else {}),
        }

    @cached_property
    def fingerprint(self) -> str:
        """A short hash of `answer_settings`: equal fingerprints answer a question the same way.
        Settings are frozen, so it is computed once per object (every run a process takes carries it).

        Runs carry the fingerprint of the process that took the question; a worker answers only runs
        whose fingerprint is its own (workers/settings_check.py). It holds no secret.
        """
        canonical = json.dumps(self.answer_settings(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]

    @property
    def price(self) -> Price:
        """The configured model's price; zero offline or for a model with no known price."""
        return self.price_of(self.model)

    def price_of(self, model: str) -> Price:
        """`model`'s price (ATLAS_PRICE's for ATLAS_MODEL, atlas.toml's for a channel's); zero offline or unknown."""
        if self.offline:
            return Price(0.0, 0.0, 0.0)
        return self.prices.get(model, Price(0.0, 0.0, 0.0))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read the environment once. Raises ConfigError with the variable's name on bad values."""
        read = EnvValues(os.environ if env is None else env)
        get, number, flag, positive = read.get, read.number, read.flag, read.positive
        model = get("ATLAS_MODEL") or DEFAULT_MODEL
        repos = repos_from_env(get, repo_name_problem)

        def primary(name: str) -> str | None:  # ATLAS_GITHUB_REPOS' first stands for ATLAS_GITHUB_REPO
            return (repos[0] if repos else None) if name == "ATLAS_GITHUB_REPO" else get(name)

        project_fields = _project_from_env(primary, number)
        prompts_raw = get("ATLAS_ASSISTANT_PROMPTS")  # "first prompt | second prompt | ..."
        prompts = DEFAULT_ASSISTANT_PROMPTS if prompts_raw is None else assistant_prompts(prompts_raw)
        channels = channel_config.read(get("ATLAS_CONFIG"))  # atlas.toml: refused with its line and reason
        prices = prices_of(model, get("ATLAS_PRICE"), channels)
        return cls(
            data_dir=Path(get("ATLAS_DATA") or DEFAULT_DATA).resolve(),
            home=Path(get("ATLAS_HOME") or REPO_ROOT / ".atlas").resolve(),
            redis_url=redis_url(get("REDIS_URL")),
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
            slack_tier=slack_tier(get("ATLAS_SLACK_TIER")),
            slash_command=get("ATLAS_SLASH_COMMAND") or "/orbit",
            approvers=read.names("ATLAS_APPROVERS"),
            approver_group=get("ATLAS_APPROVER_GROUP"),
            approval_ttl_seconds=int(number("ATLAS_APPROVAL_TTL", 24 * 3600, int)),
            audit_retention_days=retention_days(get("ATLAS_AUDIT_RETENTION_DAYS"), cls.audit_retention_days),
            asker_may_approve=flag("ATLAS_ASKER_MAY_APPROVE", False),
            docs_base_url=get("ATLAS_DOCS_URL"),
            issues_base_url=get("ATLAS_ISSUES_URL"),
            assistant_prompts=prompts,
            port=int(number("PORT", 3000, int)),
            http_threads=positive("ATLAS_HTTP_THREADS", 16, int),
            worker_heartbeat_ttl=int(number("ATLAS_WORKER_HEARTBEAT_TTL", 20, int)),
            worker_maintenance_seconds=int(number("ATLAS_WORKER_MAINTENANCE", 30, int)),
            worker_concurrency=worker_concurrency(get("ATLAS_WORKER_CONCURRENCY")),
            budget=Budget(
                max_steps=positive("ATLAS_MAX_STEPS", Budget.max_steps, int),
                max_seconds=positive("ATLAS_MAX_SECONDS", Budget.max_seconds),
                max_tokens=positive("ATLAS_MAX_TOKENS", Budget.max_tokens, int),
                max_errors=positive("ATLAS_MAX_ERROR_STEPS", Budget.max_errors, int),
            ),
            draft=DraftBudget(
                max_tokens=positive("ATLAS_DRAFT_MAX_TOKENS", DraftBudget.max_tokens, int),
                max_seconds=positive("ATLAS_DRAFT_MAX_SECONDS", DraftBudget.max_seconds),
            ),
            tool_timeout_seconds=positive("ATLAS_TOOL_TIMEOUT", TOOL_TIMEOUT_SECONDS),
            semantic_docs=flag("ATLAS_SEMANTIC", True),
            slack_outage_seconds=number("ATLAS_SLACK_OUTAGE_SECONDS", 900.0),
            slack_retry_cap_seconds=number("ATLAS_SLACK_RETRY_CAP", 30.0),
            redis_retry_cap_seconds=number("ATLAS_REDIS_RETRY_CAP", 2.0),
            discord_application_id=get("DISCORD_APPLICATION_ID"),
            discord_public_key=discord_public_key(get("DISCORD_PUBLIC_KEY")),
            discord_bot_token=get("DISCORD_BOT_TOKEN"),
            discord_api_url=get("DISCORD_API_URL"),
            discord_approvers=read.names("ATLAS_DISCORD_APPROVERS"),
            discord_approver_role=get("ATLAS_DISCORD_APPROVER_ROLE"),
            mcp_token=mcp_token(get("ATLAS_MCP_TOKEN")),
            mcp=mcp_from_env(get),
            triage=triage_from_env(get, flag, positive),
            help=help_from_env(get).with_file(channels),
            console=console_from_env(get, number),
            knowledge=knowledge_from_env(get, number),
            channels=channels,
            daily_cost_limit=cost_limit(get("ATLAS_DAILY_COST_LIMIT")),
            org=with_file(org_from_env(get, repos, number), channels),
        ).with_project(**project_fields)

    def with_project(self, **fields: Any) -> Settings:
        """These settings with the project block applied (defaults that depend on the repository)."""
        return replace(self, **fields) if fields else self

    def for_repo(self, repo: str | None) -> Settings:
        """These settings serving `repo` alone: its GitHub block, data folder and links (`self` for the first or
        None). The copy keeps the process's fingerprint: a run taken under these settings is answered by them."""
        gh = self.github
        if gh is None or repo is None or repo.lower() == gh.repo.lower():
            return self
        one = replace(gh, repo=repo)
        issues = self.issues_base_url
        if issues == f"{gh.web_url}/{gh.repo}/issues/{{id}}":
            issues = f"{gh.web_url}/{repo}/issues/{{id}}"
        project = repo_project(self.project, gh.repo, repo)
        copy = replace(self, github=one, data_dir=one.folder(self.home), issues_base_url=issues, project=project)
        copy.__dict__["fingerprint"] = self.fingerprint  # cached_property's slot
        return copy
