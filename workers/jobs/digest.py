"""The scheduled digest of new issues held back by the repository's rate (workers/inbox/digest.py)."""

from __future__ import annotations


def post_digest(scope: str) -> str:
    """Name the issues held back since the last digest, if any (and schedule the next)."""
    from workers.inbox import digest
    from workers.process import runtime

    return digest.tell(runtime.current(), scope) or "nothing held back since the last digest"
