"""An organization's repositories and the channels that know theirs, as settings (issue 38).

`ATLAS_GITHUB_REPOS=owner/a,owner/b` lists the repositories one install serves (`ATLAS_GITHUB_REPO` is a list of
one); `ATLAS_CHANNEL_REPOS=C123=owner/a,...` says which repository a Slack or Discord channel is about;
`ATLAS_TRIAGE_CHANNELS=owner/a=C789,...` where each repository's triage cards go (`ATLAS_TRIAGE_CHANNEL` stays the
default); `ATLAS_OPEN_CORPORA` how many repositories' indexes a process keeps open at once. The rest of the code
asks `repo_for_channel` which repository a channel is about, so another source of per-channel settings (a
settings file) feeds the same map.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from atlas.channel_config import ChannelsFile
from atlas.errors import ConfigError
from atlas.project_settings import Project

DEFAULT_OPEN_CORPORA = 8  # indexes of this many repositories stay open in a process; the least recently used close

Get = Callable[[str], "str | None"]
NameProblem = Callable[[str], "str | None"]


@dataclass(frozen=True)
class OrgSettings:
    """The repositories served and which repository each channel is about; empty for the Orbit demo."""

    repos: tuple[str, ...] = ()  # OWNER/REPO, in the order configured; the first is the primary (ATLAS_GITHUB_REPO)
    channel_repos: Mapping[str, str] = field(default_factory=dict)  # channel id -> OWNER/REPO
    triage_channels: Mapping[str, str] = field(default_factory=dict)  # OWNER/REPO (lower case) -> channel id
    open_corpora: int = DEFAULT_OPEN_CORPORA

    @property
    def many(self) -> bool:
        """More than one repository: sources name theirs and a write must say which one."""
        return len(self.repos) > 1

    def repo_for_channel(self, channel: str | None) -> str | None:
        """Which repository `channel` is about (None: every repository, or no mapping)."""
        if not channel:
            return None
        return self.channel_repos.get(channel)

    def canonical(self, name: str) -> str | None:
        """The configured spelling of `name`: `owner/b` in any case, or `b` when one repository is called that."""
        wanted = name.strip().lower()
        for repo in self.repos:
            if repo.lower() == wanted:
                return repo
        short = [repo for repo in self.repos if repo.split("/", 1)[1].lower() == wanted]
        return short[0] if len(short) == 1 else None

    def triage_channel(self, repo: str | None, default: str | None) -> str | None:
        """Where `repo`'s triage cards go: its own channel, else ATLAS_TRIAGE_CHANNEL's."""
        return self.triage_channels.get((repo or "").lower(), default)

    def with_channels(self, channel_repos: Mapping[str, str]) -> OrgSettings:
        """These settings with more channel -> repository entries (a settings file's), which win over the env's."""
        return replace(self, channel_repos={**self.channel_repos, **channel_repos})


def _pairs(name: str, raw: str | None) -> list[tuple[str, str]]:
    """`key=value,key=value`: each pair's two sides, stripped; a pair without both is refused with the variable."""
    out: list[tuple[str, str]] = []
    for item in (raw or "").split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ConfigError(f"{name} must be pairs KEY=VALUE separated by commas, got {item.strip()!r}")
        out.append((key.strip(), value.strip()))
    return out


def repos_from_env(get: Get, problem: NameProblem) -> tuple[str, ...]:
    """ATLAS_GITHUB_REPOS, else ATLAS_GITHUB_REPO as a list of one; each checked as GitHub names are."""
    raw = get("ATLAS_GITHUB_REPOS")
    single = get("ATLAS_GITHUB_REPO")
    names = [r.strip() for r in (raw or "").split(",") if r.strip()] if raw else ([single] if single else [])
    if raw and single:  # ATLAS_GITHUB_REPO (or `atlas sync github OWNER/REPO`'s) is the primary
        names = [single, *(r for r in names if r.lower() != single.lower())]
    seen: dict[str, str] = {}
    for name in names:
        why = problem(name)
        if why:
            raise ConfigError(f"{name!r} in ATLAS_GITHUB_REPOS is not a GitHub OWNER/REPO: {why}")
        seen.setdefault(name.lower(), name)
    return tuple(seen.values())


def org_from_env(get: Get, repos: tuple[str, ...], number: Callable[..., float]) -> OrgSettings:
    """The organization block; a channel or a triage channel naming a repository not served is refused."""
    org = OrgSettings(repos=repos)
    channels: dict[str, str] = {}
    for channel, repo in _pairs("ATLAS_CHANNEL_REPOS", get("ATLAS_CHANNEL_REPOS")):
        known = org.canonical(repo)
        if known is None:
            raise ConfigError(f"ATLAS_CHANNEL_REPOS maps {channel} to {repo}, which is not in ATLAS_GITHUB_REPOS")
        channels[channel] = known
    triage: dict[str, str] = {}
    for repo, channel in _pairs("ATLAS_TRIAGE_CHANNELS", get("ATLAS_TRIAGE_CHANNELS")):
        known = org.canonical(repo)
        if known is None:
            raise ConfigError(f"ATLAS_TRIAGE_CHANNELS names {repo}, which is not in ATLAS_GITHUB_REPOS")
        triage[known.lower()] = channel
    if triage and not (get("ATLAS_TRIAGE_CHANNEL") or get("ATLAS_DISCORD_TRIAGE_CHANNEL")):
        raise ConfigError(
            "ATLAS_TRIAGE_CHANNELS needs ATLAS_TRIAGE_CHANNEL (or ATLAS_DISCORD_TRIAGE_CHANNEL): triage is on with "
            "it, and the repositories without a channel of their own post there"
        )
    limit = int(number("ATLAS_OPEN_CORPORA", DEFAULT_OPEN_CORPORA, int))
    if limit < 1:
        raise ConfigError(f"ATLAS_OPEN_CORPORA must be 1 or more, got {limit}")
    return replace(org, channel_repos=channels, triage_channels=triage, open_corpora=limit)


def with_file(org: OrgSettings, channels: ChannelsFile) -> OrgSettings:
    """ATLAS_CHANNEL_REPOS with atlas.toml's `repo` of each channel over it (the file wins for the channels it
    names); while the install serves repositories, a file's that is not served is refused, as the environment's
    is (the Orbit demo serves none: there a channel's `repo` only names its spend on the console)."""
    for channel, repo in channels.repos().items():
        if org.repos and org.canonical(repo) is None:
            raise ConfigError(
                f"{channel}: the repository {repo!r} (atlas.toml) is not served: add it to ATLAS_GITHUB_REPOS"
            )
    return org.with_channels({c: org.canonical(r) or r for c, r in channels.repos().items()})


def repo_project(project: Project, primary: str, repo: str) -> Project:
    """The project as `repo`'s (its prompt names it): what was derived from the primary repository becomes
    `repo`'s; a name or description the operator wrote (ATLAS_PROJECT_NAME, ATLAS_PROJECT_DESCRIPTION) stays."""
    derived = project.description == f"{project.name}, the GitHub repository {primary}"
    name = repo.split("/", 1)[1] if project.name == primary.split("/", 1)[1] else project.name
    return Project(name, f"{name}, the GitHub repository {repo}" if derived else project.description)


def org_project(project: Project, primary: str, repos: tuple[str, ...]) -> Project:
    """The project of a run about every repository (a channel about none): the repositories named, unless the
    operator wrote the description."""
    if project.description != f"{project.name}, the GitHub repository {primary}" or len(repos) < 2:
        return project
    return Project(project.name, f"the GitHub repositories {', '.join(repos)}")
