"""Who may approve or deny a proposed side effect.

By default: the person who asked (when `asker_may_approve`) and the configured maintainers, which
are user ids (`ATLAS_APPROVERS`) and/or the members of a Slack user group (`ATLAS_APPROVER_GROUP`,
read with usergroups.users.list and cached briefly). Everyone else is refused, whatever they click.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("atlas.approvers")
GROUP_CACHE_SECONDS = 60.0


@dataclass(frozen=True)
class Policy:
    """The approver rule, built from settings at the entry point."""

    approvers: frozenset[str] = frozenset()
    group: str | None = None
    asker_may_approve: bool = True

    @classmethod
    def from_settings(cls, settings: object) -> Policy:
        return cls(
            approvers=frozenset(getattr(settings, "approvers", ()) or ()),
            group=getattr(settings, "approver_group", None),
            asker_may_approve=bool(getattr(settings, "asker_may_approve", True)),
        )


@dataclass
class GroupMembers:
    """Members of a user group from the Slack API, cached for a minute; a failed lookup grants nothing."""

    fetch: Callable[[str], list[str]]
    ttl: float = GROUP_CACHE_SECONDS
    _cache: dict[str, tuple[float, frozenset[str]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, group: str) -> frozenset[str]:
        with self._lock:
            hit = self._cache.get(group)
            if hit and time.monotonic() - hit[0] < self.ttl:
                return hit[1]
        try:
            members = frozenset(self.fetch(group))
        except Exception:
            log.warning("could not list members of user group %s; treating it as empty", group, exc_info=True)
            return frozenset()
        with self._lock:
            self._cache[group] = (time.monotonic(), members)
        return members


def slack_group_members(client: object) -> GroupMembers:
    """GroupMembers backed by usergroups.users.list on a slack_sdk WebClient."""
    return GroupMembers(lambda group: list(client.usergroups_users_list(usergroup=group).get("users") or []))  # type: ignore[attr-defined]


def may_decide(user: str, requester: str, policy: Policy, members: Callable[[str], frozenset[str]] | None) -> bool:
    """True if `user` may approve or deny a call requested by `requester`."""
    if not user:
        return False
    if policy.asker_may_approve and requester and user == requester:
        return True
    if user in policy.approvers:
        return True
    if policy.group and members is not None:
        return user in members(policy.group)
    return False
