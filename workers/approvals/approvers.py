"""Who may approve or deny a proposed side effect: only maintainers, out of the box.

Maintainers are the configured approvers: user ids (`ATLAS_APPROVERS`) and/or the members of a
Slack user group (`ATLAS_APPROVER_GROUP`, read with usergroups.users.list). With neither configured,
the workspace's admins and owners are the maintainers (users.info says `is_admin`, `is_owner`,
`is_primary_owner`). The person who asked decides their own run's actions only if they are a
maintainer themselves, unless `ATLAS_ASKER_MAY_APPROVE=true` opts a small team into letting every
asker decide. Slack's answers are cached in Redis for a minute, so a click costs no Slack call
most of the time and a demoted admin loses the right within a minute; a lookup that fails grants
nothing and is not cached.

The rule is split where a click needs it split: `standing` is what the policy says of a clicker from
the settings alone; the rest (is the clicker the asker, what the cached directory answer says) is
read inside the decision script (workers/approvals/decisions.py), so a click is decided in one round
trip. `may_decide` is the same rule end to end, asking the directory itself.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

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


Lookup = Literal["members", "admin"]


@dataclass(frozen=True)
class Standing:
    """What the policy says of one clicker before the approval and the directory are read.

    `granted`: the configured ids (or a caller that authorized the clicker) grant it; `asker_counts`:
    the clicker also decides if they asked (the opt-in); `lookup`: which directory answer decides
    the rest, "members" of `subject` (the group) or "admin" `subject` (the clicker); None: nothing else grants.
    """

    user: str
    granted: bool = False
    asker_counts: bool = False
    lookup: Lookup | None = None
    subject: str = ""

    @classmethod
    def known(cls, user: str, allowed: bool) -> Standing:
        """A clicker the caller has already judged (Discord reads the right from the click itself)."""
        return cls(user, granted=allowed and bool(user))

    @property
    def key(self) -> str:
        """The Redis key of the cached directory answer `lookup` needs ("" when none)."""
        if self.lookup == "members":
            return group_key(self.subject)
        return admin_key(self.subject) if self.lookup == "admin" else ""


def standing(user: str, policy: Policy) -> Standing:
    """The policy applied to `user` as far as the settings go (the asker and the directory come later)."""
    if not user:
        return Standing(user)
    asker = policy.asker_may_approve
    if user in policy.approvers:
        return Standing(user, granted=True, asker_counts=asker)
    if policy.group:
        return Standing(user, asker_counts=asker, lookup="members", subject=policy.group)
    if policy.configured:
        return Standing(user, asker_counts=asker)
    return Standing(user, asker_counts=asker, lookup="admin", subject=user)


def group_key(group: str) -> str:
    return f"atlas:approvers:group:{group}"


def admin_key(user: str) -> str:
    return f"atlas:approvers:admin:{user}"


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
        found = self._cached(
            group_key(group), lambda: sorted(self.client.usergroups_users_list(usergroup=group).get("users") or [])
        )
        return frozenset(found or ())

    def is_admin(self, user: str) -> bool:
        return bool(self._cached(admin_key(user), lambda: _is_admin(self.client.users_info(user=user).get("user"))))

    def _cached(self, key: str, fetch: Callable[[], Any]) -> Any:
        """Redis first; else ask Slack and keep the answer `ttl` seconds. A Slack failure answers None.
        The decision script reads these values too: a JSON list of user ids, or JSON true/false."""
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


def may_decide(user: str, requester: str, policy: Policy, directory: Directory | None) -> bool:
    """True if `user` may approve or deny a call requested by `requester` (asking `directory` if needed)."""
    found = standing(user, policy)
    if found.granted or (found.asker_counts and user == requester):
        return True
    if found.lookup is None or directory is None:
        return False
    if found.lookup == "members":
        return user in directory.members(found.subject)
    return directory.is_admin(user)
