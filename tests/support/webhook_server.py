"""`atlas serve`'s HTTP server with GitHub's webhook path, in a thread, over a synced stand-in repository."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from atlas.settings import Settings
from bot.slack.app import create_app
from bot.web.serve import github_webhook, http_server
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.standins.github_webhooks import SECRET
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_fixtures import BackgroundServer
from tests.support.github_harness import run_sync
from tests.support.org_harness import Org, two_repositories


@dataclass
class Served:
    api: GitHubAPI
    settings: Settings
    base_url: str  # http://host:port
    env: dict[str, str]  # for a worker process with the same settings

    @property
    def url(self) -> str:
        return self.base_url + "/github/webhook"


@contextmanager
def serving_webhooks(atlas_env: dict[str, str], issues: int, comments: int) -> Iterator[Served]:
    """The repository synced, the server listening; afterwards, the stand-in saw no request GitHub would refuse."""
    with GitHubAPI(generate(issues, comments=comments)) as api, SlackAPI() as slack:
        env = {**atlas_env, **api.env(), **slack.env(), "GITHUB_WEBHOOK_SECRET": SECRET, "SLACK_SIGNING_SECRET": "s"}
        settings = Settings.from_env(env)
        run_sync(api, settings)
        server = BackgroundServer(
            http_server(create_app(settings), host="127.0.0.1", github=github_webhook(settings))
        ).start()
        try:
            yield Served(api, settings, f"http://127.0.0.1:{server.port}", env)
        finally:
            server.close()
        assert api.violations == []


@contextmanager
def serving_org_webhooks(atlas_env: dict[str, str]) -> Iterator[tuple[Org, str]]:
    """Two synced repositories (tests/support/org_harness.py) behind one webhook URL, the server listening: the
    install and the URL GitHub would deliver to."""
    with (
        SlackAPI() as slack,
        two_repositories(
            {**atlas_env, **slack.env(), "GITHUB_WEBHOOK_SECRET": SECRET, "SLACK_SIGNING_SECRET": "s"}
        ) as up,
    ):
        server = BackgroundServer(
            http_server(create_app(up.settings), host="127.0.0.1", github=github_webhook(up.settings))
        ).start()
        try:
            yield up, f"http://127.0.0.1:{server.port}/github/webhook"
        finally:
            server.close()
