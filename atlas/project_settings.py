"""The project Atlas serves and its tracker, as settings: Orbit (the embedded demo) or a GitHub repository.

A project's identity (name, how the prompt describes it, slash command, issue and doc URL templates)
is configuration, never code. `ATLAS_GITHUB_REPO=OWNER/REPO` switches every process to the folder
`atlas sync github` writes under `ATLAS_HOME`, the GitHub tracker and github.com links.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atlas.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parent.parent  # the checkout: relative paths in settings are resolved from it
# GitHub's own rules, checked before the name becomes a folder under ATLAS_HOME or a request path:
# an owner is 1-39 alphanumerics or single inner hyphens; a repository 1-100 of [A-Za-z0-9._-], not . or ..
OWNER_NAME = re.compile(r"^(?=.{1,39}$)[A-Za-z0-9](?:-?[A-Za-z0-9])*$")
REPOSITORY_NAME = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
API_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")  # GitHub's REST API versions are release dates
DEFAULT_SYNC_INTERVAL = 15 * 60
DEFAULT_RECONCILE_EVERY = 24  # syncs between two listings of every issue number (6 hours at the default interval)
GITHUB_WEB = "https://github.com"


@dataclass(frozen=True)
class Project:
    """Who Atlas works for: shown in the prompt, tool descriptions and replies."""

    name: str
    description: str


# Suggested prompts of Slack's assistant view for a project other than the Orbit demo: nothing in them
# names Orbit's error codes or issue numbers (ATLAS_ASSISTANT_PROMPTS replaces them).
PROJECT_ASSISTANT_PROMPTS = (
    "What are the most common problems people report?",
    "Which open issues look like duplicates of each other?",
    "How do I get started?",
)

ORBIT = Project("Orbit", "Orbit, a Python background-jobs library (error codes look like ORB-1202)")


@dataclass(frozen=True)
class GitHubSettings:
    """A GitHub repository as the tracker: credentials, API base URL, webhook secret, sync cadence."""

    repo: str  # OWNER/REPO
    api_url: str | None = None  # None: api.github.com
    token: str | None = field(default=None, repr=False)  # secrets stay out of reprs and logs
    app_id: str | None = None
    app_private_key: str | None = field(default=None, repr=False)
    webhook_secret: str | None = field(default=None, repr=False)
    sync_interval_seconds: int = DEFAULT_SYNC_INTERVAL
    reconcile_every: int = DEFAULT_RECONCILE_EVERY  # 0: only `atlas sync github --reconcile`
    code_paths: tuple[str, ...] = ("",)  # ATLAS_SYNC_CODE: folders whose code is synced ("": all); (): no code
    releases: bool = True  # ATLAS_SYNC_RELEASES: releases into knowledge/releases.jsonl
    discussions: bool = True  # ATLAS_SYNC_DISCUSSIONS: discussions (GraphQL) into knowledge/discussions.jsonl
    web_url: str = GITHUB_WEB  # where html links point (GitHub Enterprise: its host)
    api_version: str | None = None  # X-GitHub-Api-Version; None: githubkit's (GitHub Enterprise Server may need older)

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repo.split("/", 1)[1]

    def app_key_problem(self) -> str | None:
        """Why the App's private key cannot sign its JWTs (None when it can, or no App is set), checked before any
        request by the command about to use it, so a bad key is not reported as GitHub being unreachable."""
        if self.token or not (self.app_id and self.app_private_key):
            return None
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        try:
            load_pem_private_key(self.app_private_key.encode(), password=None)
        except (ValueError, TypeError):
            return (
                "GITHUB_APP_PRIVATE_KEY (or the file at GITHUB_APP_PRIVATE_KEY_PATH) is not a PEM private key; "
                "generate one on the GitHub App's settings page and set its whole .pem text or path"
            )
        return None

    def folder(self, home: Path) -> Path:
        """The synced project folder (docs/ and issues/) under ATLAS_HOME."""
        return Path(home) / "github" / self.owner / self.name


def repo_name_problem(repo: str) -> str | None:
    """Why `repo` is not a GitHub OWNER/REPO (None when it is one), so no path or URL is built from it."""
    owner, slash, name = repo.partition("/")
    if not slash or not owner or not name:
        return "expected one slash between the owner and the repository"
    if not OWNER_NAME.match(owner):
        return "an owner is 1 to 39 letters, digits or single hyphens, not starting or ending with a hyphen"
    if not REPOSITORY_NAME.match(name) or name in (".", ".."):
        return "a repository is 1 to 100 letters, digits, '.', '_' or '-', and not '.' or '..'"
    return None


Get = Callable[[str], "str | None"]
Number = Callable[..., float]


def switch(name: str, raw: str | None, default: bool = True) -> bool:
    """An on/off variable (1/true/yes/on, 0/false/no/off); unset: `default`."""
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on") or value in ("0", "false", "no", "off"):
        return value in ("1", "true", "yes", "on")
    raise ConfigError(f"{name} must be true or false, got {raw!r}")


def code_paths(raw: str | None) -> tuple[str, ...]:
    """ATLAS_SYNC_CODE: unset, the whole repository; `off`, no code; else comma-separated folders of it."""
    if raw is None:
        return ("",)
    if raw.strip().lower() in ("off", "0", "false", "no", "none"):
        return ()
    paths = tuple(p.strip().strip("/") for p in raw.split(",") if p.strip())
    bad = [p for p in paths if ".." in p.split("/") or "\\" in p]
    if bad or not paths:
        raise ConfigError(f"ATLAS_SYNC_CODE must be off or folders of the repository separated by commas, got {raw!r}")
    return paths


def project_from_env(get: Get, number: Number) -> dict[str, Any]:
    """Settings fields for the project block; {} keeps the Orbit defaults."""
    fields: dict[str, Any] = {}
    name, description = get("ATLAS_PROJECT_NAME"), get("ATLAS_PROJECT_DESCRIPTION")
    repo = get("ATLAS_GITHUB_REPO")
    if get("ATLAS_ASSISTANT_PROMPTS") is None and (repo or name):
        fields["assistant_prompts"] = PROJECT_ASSISTANT_PROMPTS  # Orbit's examples would mislead
    if repo is None:
        if name or description:
            fields["project"] = Project(name or ORBIT.name, description or name or ORBIT.description)
        return fields
    repo_problem = repo_name_problem(repo)
    if repo_problem:
        raise ConfigError(
            f"{repo!r} is not a GitHub OWNER/REPO (ATLAS_GITHUB_REPO, or the "
            f"argument of `atlas sync github`): {repo_problem}"
        )
    key = get("GITHUB_APP_PRIVATE_KEY")
    key_path = get("GITHUB_APP_PRIVATE_KEY_PATH")
    if key is None and key_path is not None:
        try:
            key = Path(key_path).read_text()
        except OSError as exc:
            raise ConfigError(f"GITHUB_APP_PRIVATE_KEY_PATH: cannot read {key_path} ({exc.strerror})") from None
    app_id = get("GITHUB_APP_ID")
    if app_id and not key:
        raise ConfigError("GITHUB_APP_ID is set but neither GITHUB_APP_PRIVATE_KEY nor GITHUB_APP_PRIVATE_KEY_PATH is")
    reconcile_every = int(number("ATLAS_SYNC_RECONCILE_EVERY", DEFAULT_RECONCILE_EVERY, int))
    if reconcile_every < 0:
        raise ConfigError(
            f"ATLAS_SYNC_RECONCILE_EVERY must be 0 (never by itself) or a number of syncs, got {reconcile_every}"
        )
    web = (get("GITHUB_WEB_URL") or GITHUB_WEB).rstrip("/")
    api_version = get("ATLAS_GITHUB_API_VERSION") or None
    if api_version is not None and not API_VERSION.match(api_version):
        raise ConfigError(
            f"ATLAS_GITHUB_API_VERSION must be a REST API version date such as 2022-11-28, got {api_version!r}"
        )
    github = GitHubSettings(
        repo=repo,
        api_url=get("GITHUB_API_URL"),
        token=get("GITHUB_TOKEN"),
        app_id=app_id,
        app_private_key=key,
        webhook_secret=get("GITHUB_WEBHOOK_SECRET"),
        sync_interval_seconds=int(number("ATLAS_SYNC_INTERVAL", DEFAULT_SYNC_INTERVAL, int)),
        web_url=web,
        reconcile_every=reconcile_every,
        api_version=api_version,
        code_paths=code_paths(get("ATLAS_SYNC_CODE")),
        releases=switch("ATLAS_SYNC_RELEASES", get("ATLAS_SYNC_RELEASES")),
        discussions=switch("ATLAS_SYNC_DISCUSSIONS", get("ATLAS_SYNC_DISCUSSIONS")),
    )
    home = Path(get("ATLAS_HOME") or REPO_ROOT / ".atlas").resolve()
    fields["github"] = github
    fields["project"] = Project(
        name or github.name, description or f"{name or github.name}, the GitHub repository {repo}"
    )
    if get("ATLAS_DATA") is None:
        fields["data_dir"] = github.folder(home)
    if get("ATLAS_ISSUES_URL") is None:
        fields["issues_base_url"] = f"{web}/{repo}/issues/{{id}}"
    if get("ATLAS_SLASH_COMMAND") is None:
        fields["slash_command"] = "/atlas"
    return fields
