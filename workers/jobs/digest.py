"""The scheduled digest of new issues held back by the repository's rate (workers/new_issues/digest.py)."""

from __future__ import annotations


def post_digest(scope: str) -> str:
    """Name the issues held back since the last digest, if any (and schedule the next)."""
    from workers.new_issues import digest
    from workers.process import runtime

    return digest.tell(runtime.current(), scope) or "nothing held back since the last digest"
