"""The triage inbox on loopback: the GitHub stand-in (a small repository with a clear duplicate), the
webhook and Slack endpoints of one `atlas serve` app, the Slack stand-in, real `atlas worker` processes."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import redis

from atlas.settings import Settings
from bot.slack.app import create_app
from bot.slack.deps import build
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION
from bot.slack.views.reply_editor import REPLY_BLOCK, REPLY_INPUT
from bot.slack.views.triage import EDIT_ACTION
from bot.web.serve import github_webhook, http_server
from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import Repo
from tests.standins.github_webhooks import SECRET as WEBHOOK_SECRET
from tests.standins.github_webhooks import deliver, payload
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender
from tests.standins.slack_fixtures import BackgroundServer
from tests.standins.slack_interactions import block_action, view_submission
from tests.support.github_harness import run_sync
from tests.support.processes import wait_for, worker_process
from workers.runs.store import RunStore

CHANNEL = "C0TRIAGE"
MAINTAINER = "U0MAINT"
TRACEBACK = (
    "Traceback (most recent call last):\n  File \"rocket/scheduler.py\", line 88, in load\nKeyError: 'retry_policy'"
)


def repository() -> Repo:
    """Topic labels with a history, and #1: the original a new report will duplicate."""
    repo = Repo()
    for name in ("bug", "docs", "question", "scheduler", "security", "duplicate"):
        repo.add_label(name)
    repo.add_issue(
        "Scheduler crashes on startup with KeyError 'retry_policy'",
        f"Starting the scheduler after upgrading to 2.3 fails:\n\n{TRACEBACK}\n",
        labels=("bug", "scheduler"),
    )
    topics = [
        ("Scheduler skips jobs after a restart", ("bug", "scheduler")),
        ("Scheduler drifts by a minute each day", ("bug", "scheduler")),
        ("Scheduler cron expression with seconds is rejected", ("bug", "scheduler")),
        ("Scheduler timezone handling is wrong in summer", ("bug", "scheduler")),
        ("How do I configure the docs theme?", ("docs", "question")),
        ("Typo in the install guide", ("docs",)),
        ("Where is the changelog for 2.3?", ("question",)),
        ("Dashboard shows the wrong colour", ("bug",)),
    ]
    for title, labels in topics:
        repo.add_issue(title, f"{title}. Seen on 2.3 with the default settings.", labels=labels)
    return repo


@dataclass
class Inbox:
    github: GitHubAPI
    slack: SlackAPI
    settings: Settings
    env: dict[str, str]
    conn: redis.Redis
    webhook_url: str
    send: SlackSender

    def open_issue(
        self, title: str, body: str, *, author: str = "zoe", association: str = "NONE", delivery: str | None = None
    ) -> dict[str, Any]:
        """A new issue on GitHub and its `issues.opened` delivery; returns the issue."""
        issue = self.github.repo.add_issue(title, body, author=author)
        self.deliver_opened(issue, association=association, delivery=delivery)
        return issue

    def deliver_opened(
        self, issue: dict[str, Any], *, association: str = "NONE", delivery: str | None = None, action: str = "opened"
    ) -> None:
        body = payload(
            f"issues-{action}",
            self.github.repo,
            action=action,
            issue=issue,
            **({"changes": {}} if action == "edited" else {}),
        )
        body["issue"]["author_association"] = association
        status, text = deliver(self.webhook_url, "issues", body, delivery=delivery)
        assert status in (200, 202), (status, text)

    def worker(self, name: str):  # noqa: ANN201 - a context manager of Popen
        return worker_process(self.env, name)  # expiry is scheduled, never due in a test: no scheduler child

    def cards(self, count: int = 1, timeout: float = 30) -> list[dict[str, Any]]:
        """Top-level messages in the triage channel, once there are `count`."""
        found = wait_for(
            lambda: (m := self.messages()) and len(m) >= count and m, timeout=timeout, what=f"{count} triage card(s)"
        )
        return copy.deepcopy(found)

    def messages(self) -> list[dict[str, Any]]:
        return [m for (channel, _), m in self.slack.messages.items() if channel == CHANNEL and not m.get("thread_ts")]

    def card_now(self, card: dict[str, Any]) -> dict[str, Any]:
        return self.slack.messages[(CHANNEL, card["ts"])]

    def click(self, card: dict[str, Any], kind: str, user: str = MAINTAINER, approve: bool = True) -> int:
        pending = button(card, kind, APPROVE_ACTION if approve else DENY_ACTION)
        body = block_action(
            APPROVE_ACTION if approve else DENY_ACTION, pending, user=user, channel=CHANNEL, message_ts=card["ts"]
        )
        body["user"]["username"] = user.lower().removeprefix("u0")
        body["message"] = {"ts": card["ts"], "blocks": card["blocks"]}
        return self.send.interaction(body).status

    def pick(self, card: dict[str, Any], labels: list[str], user: str = MAINTAINER) -> int:
        """Tick exactly `labels` in the card's label checkboxes, as Slack sends the change."""
        box = next(
            e for b in card["blocks"] if b.get("type") == "actions" for e in b["elements"] if e["type"] == "checkboxes"
        )
        body = block_action(
            box["action_id"], "", user=user, channel=CHANNEL, message_ts=card["ts"], action_type="checkboxes"
        )
        del body["actions"][0]["value"]
        body["actions"][0]["selected_options"] = [o for o in box["options"] if o["value"] in labels]
        body["message"] = {"ts": card["ts"], "blocks": card["blocks"]}
        return self.send.interaction(body).status

    def edit(self, card: dict[str, Any], user: str = MAINTAINER) -> int:
        """Click the reply's Edit button."""
        pending = button(card, "reply", EDIT_ACTION)
        body = block_action(EDIT_ACTION, pending, user=user, channel=CHANNEL, message_ts=card["ts"])
        body["message"] = {"ts": card["ts"], "blocks": card["blocks"]}
        return self.send.interaction(body).status

    def submit_reply(self, view: dict[str, Any], text: str, user: str = MAINTAINER) -> Any:
        """Submit the Edit modal as views.open opened it, with `text` typed in; Slack's reply to the app's answer."""
        return self.send.interaction(view_submission(view, {REPLY_BLOCK: {REPLY_INPUT: text}}, user=user))

    def run(self, run_id: str):  # noqa: ANN201 - RunState
        return RunStore(self.conn).load(run_id)


def button(card: dict[str, Any], kind: str, action_id: str = APPROVE_ACTION) -> str:
    """The pending id on the `kind` action's button (duplicates, labels, reply)."""
    for block in card["blocks"]:
        if block.get("type") == "actions" and block.get("block_id") == f"atlas_triage_{kind}":
            return next(e["value"] for e in block["elements"] if e["action_id"] == action_id)
    raise AssertionError(f"no {kind} action on the card")


def actions(card: dict[str, Any]) -> list[str]:
    return [b["block_id"].removeprefix("atlas_triage_") for b in card["blocks"] if b.get("type") == "actions"]


def text_of(card: dict[str, Any]) -> str:
    return card.get("text", "") + json.dumps(card.get("blocks", []), ensure_ascii=False)


@contextmanager
def inbox(
    tmp_path: Path, redis_url: str, prepare: Callable[[Repo], None] | None = None, **extra: str
) -> Iterator[Inbox]:
    """`prepare`: changes to the repository before the first sync (its history as the worker first reads it)."""
    home = tmp_path / "home"
    repo = repository()
    if prepare is not None:
        prepare(repo)
    with GitHubAPI(repo) as github, SlackAPI() as slack:
        env = {
            "ATLAS_HOME": str(home),
            "REDIS_URL": redis_url,
            **github.env(),
            **slack.env(),
            "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
            "SLACK_SIGNING_SECRET": SECRET,
            "ATLAS_APPROVERS": MAINTAINER,
            "ATLAS_TRIAGE_CHANNEL": CHANNEL,
            "ATLAS_SEMANTIC": "off",
            "ATLAS_WORKER_HEARTBEAT_TTL": "3",
            "ATLAS_WORKER_MAINTENANCE": "1",
            **extra,
        }
        env = {k: v for k, v in env.items() if v != ""}
        settings = Settings.from_env(env)
        run_sync(github, settings)
        deps = build(settings)
        server = BackgroundServer(
            http_server(create_app(settings, deps), host="127.0.0.1", github=github_webhook(settings))
        ).start()
        base = f"http://127.0.0.1:{server.port}"
        try:
            yield Inbox(
                github,
                slack,
                settings,
                env,
                redis.Redis.from_url(redis_url),
                base + "/github/webhook",
                SlackSender(base + "/slack/events"),
            )
        finally:
            server.close()
            deps.background.shutdown(wait=True)
        assert github.violations == []


__all__ = ["CHANNEL", "MAINTAINER", "TRACEBACK", "Inbox", "actions", "button", "inbox", "replace", "text_of"]
