"""Who makes Atlas step back in a Slack help thread (bot/slack/help_channels.py): configured ids at once,
members of a user group and, with no approvers configured, admins once the directory says so; the asker
and other people never."""

from __future__ import annotations

from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from atlas.settings import Settings
from bot.slack.help_channels import _step_back_if_maintainer
from workers.help import threads

T = threads.slack_thread("T1", "C0HELP", "100.0")


class Now(Executor):
    """Runs what is submitted at once, so the test sees the after-ack lookup's effect."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        done: Future[Any] = Future()
        done.set_result(fn(*args, **kwargs))
        return done


@dataclass
class Directory:
    groups: dict[str, frozenset[str]] = field(default_factory=dict)
    admins: frozenset[str] = frozenset()
    asked: list[str] = field(default_factory=list)

    def members(self, group: str) -> frozenset[str]:
        self.asked.append(group)
        return self.groups.get(group, frozenset())

    def is_admin(self, user: str) -> bool:
        self.asked.append(user)
        return user in self.admins


@dataclass
class Deps:
    settings: Settings
    redis: redis.Redis
    background: Executor = field(default_factory=Now)


@pytest.mark.parametrize(
    ("env", "directory", "user", "steps_back"),
    [
        ({"ATLAS_HELP_MAINTAINERS": "U0MAINT"}, Directory(), "U0MAINT", True),
        ({"ATLAS_APPROVERS": "U0APPROVER"}, Directory(), "U0APPROVER", True),
        (
            {"ATLAS_APPROVERS": "U0APPROVER"},
            Directory(admins=frozenset({"U0ADMIN"})),
            "U0ADMIN",
            False,
        ),  # approvers named: admins don't count
        ({"ATLAS_HELP_MAINTAINERS": "S0TEAM"}, Directory(groups={"S0TEAM": frozenset({"U0MEMBER"})}), "U0MEMBER", True),
        ({"ATLAS_APPROVER_GROUP": "S0APP"}, Directory(groups={"S0APP": frozenset({"U0MEMBER"})}), "U0MEMBER", True),
        ({}, Directory(admins=frozenset({"U0ADMIN"})), "U0ADMIN", True),
        ({}, Directory(admins=frozenset({"U0ADMIN"})), "U0BYSTANDER", False),
    ],
)
def test_who_makes_atlas_step_back(
    redis_conn: redis.Redis, tmp_path: Path, env: dict[str, str], directory: Directory, user: str, steps_back: bool
) -> None:
    threads.open_thread(redis_conn, T, asker="U0ASKER", channel="C0HELP", post="100.0", run_id="r1", limit=10)
    settings = Settings.from_env({**env, "ATLAS_HOME": str(tmp_path)})
    _step_back_if_maintainer(Deps(settings, redis_conn), directory, T, user)  # type: ignore[arg-type]
    assert threads.stepped_back(redis_conn, T) is steps_back
