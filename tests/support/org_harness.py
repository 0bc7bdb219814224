"""Two repositories on one GitHub stand-in, both synced, served by one install (issue 38)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from atlas.settings import Settings
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import Repo, generate
from tests.support.github_harness import run_sync

SECOND = "cli"  # the second repository: acme/cli beside the stand-in's own


@dataclass
class Org:
    api: GitHubAPI
    first: Repo
    second: Repo
    settings: Settings
    env: dict[str, str]


def second_repo(issues: int, comments: int, name: str = SECOND, repo_id: int = 5151, seed: int = 11) -> Repo:
    """Another repository of the same owner, with issues of its own (another seed: other titles)."""
    repo = generate(issues, comments=comments, seed=seed)
    old = repo.full_name
    repo.name, repo.repo_id = name, repo_id
    for table in (repo.issues, repo.comments, repo.labels):  # the URLs in them name the repository
        for key, value in table.items():
            text = re.sub(f'/{re.escape(old)}(?=[/"])', f"/{repo.full_name}", json.dumps(value))
            table[key] = json.loads(text)  # type: ignore[index]
    return repo


@contextmanager
def two_repositories(env: dict[str, str], issues: int = 20, comments: int = 10) -> Iterator[Org]:
    """The stand-in serving both, ATLAS_GITHUB_REPOS naming both, each synced into its own folder."""
    with GitHubAPI(generate(issues, comments=comments)) as api:
        second = second_repo(issues, comments)
        api.others[second.full_name] = second
        full = {**env, **api.env(), "ATLAS_GITHUB_REPOS": f"{api.repo.full_name},{second.full_name}"}
        settings = Settings.from_env(full)
        for repo in settings.repos:
            run_sync(api, settings.for_repo(repo))
        yield Org(api, api.repo, second, settings, full)
