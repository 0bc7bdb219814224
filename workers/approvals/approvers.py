"""Who may approve or deny a proposed side effect: only maintainers, out of the box.

Maintainers are the configured approvers: user ids (`ATLAS_APPROVERS`) and/or the members of a
Slack user group (`ATLAS_APPROVER_GROUP`, read with usergroups.users.list). With neither configured,
the workspace's admins and owners are the maintainers (users.info says `is_admin`, `is_owner`,
`is_primary_owner`). The person who asked decides their own run's actions only if they are a
maintainer themselves, unless `ATLAS_ASKER_MAY_APPROVE=true` opts a small team into letting every
asker decide. Slack's answers are cached in Redis for a minute, so a click costs no Slack call
most of the time and a demoted admin loses the right within a minute; a lookup that fails grants
nothing and is not cached.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import redis

from atlas.settings import Settings

log = logging.getLogger("atlas.approvers")
CACHE_SECONDS = 60
ADMIN_FLAGS = ("is_admin", "is_owner", "is_primary_owner")


@dataclass(frozen=True)
class Policy:
    """The approver rule, built from settings at the entry point."""

    approvers: frozenset[str] = frozenset()
    group: str | None = None
    asker_may_approve: bool = False

    @property
    def configured(self) -> bool:
        """Approvers were named (ids or a group); the workspace's admins then do not count."""
        return bool(self.approvers or self.group)

    @classmethod
    def from_settings(cls, settings: Settings) -> Policy:
        return cls(
            approvers=frozenset(settings.approvers),
            group=settings.approver_group,
            asker_may_approve=settings.asker_may_approve,
        )


class Directory(Protocol):
    """What the chat platform knows about people: group members and workspace admins."""

    def members(self, group: str) -> frozenset[str]: ...

    def is_admin(self, user: str) -> bool: ...


class SlackDirectory:
    """Directory backed by the Slack Web API (usergroups.users.list, users.info), cached in Redis."""

    def __init__(self, client: Any, conn: redis.Redis, ttl: int = CACHE_SECONDS) -> None:
        self.client = client
        self.conn = conn
        self.ttl = ttl

    def members(self, group: str) -> frozenset[str]:
        found = self._cached(f"atlas:approvers:group:{group}", lambda: sorted(
            self.client.usergroups_users_list(usergroup=group).get("users") or []))
        return frozenset(found or ())

    def is_admin(self, user: str) -> bool:
        return bool(self._cached(f"atlas:approvers:admin:{user}", lambda: _is_admin(self.client.users_info(user=user).get("user"))))

    def _cached(self, key: str, fetch: Callable[[], Any]) -> Any:
        """Redis first; else ask Slack and keep the answer `ttl` seconds. A Slack failure answers None."""
        raw = self.conn.get(key)
        if raw is not None:
            return json.loads(raw)
        try:
            value = fetch()
        except Exception as exc:  # slack_sdk's errors, a dropped connection: nobody is granted anything
            log.warning("approver lookup %s failed (%s); granting nothing", key, type(exc).__name__)
            return None
        self.conn.set(key, json.dumps(value), ex=self.ttl)
        return value


def _is_admin(user: dict[str, Any] | None) -> bool:
    """A workspace admin or owner who is still an active, full member (not deleted, not a bot)."""
    if not user or user.get("deleted") or user.get("is_bot"):
        return False
    return any(bool(user.get(flag)) for flag in ADMIN_FLAGS)


def is_approver(user: str, policy: Policy, directory: Directory | None) -> bool:
    """True if `user` is a maintainer: configured, else a workspace admin or owner."""
    if not user:
        return False
    if user in policy.approvers:
        return True
    if policy.group:
        return directory is not None and user in directory.members(policy.group)
    if policy.configured:
        return False
    return directory is not None and directory.is_admin(user)


def may_decide(user: str, requester: str, policy: Policy, directory: Directory | None) -> bool:
    """True if `user` may approve or deny a call requested by `requester`."""
    if not user:
        return False
    if policy.asker_may_approve and requester and user == requester:
        return True  # the explicit opt-in for small teams
    return is_approver(user, policy, directory)
