"""Full tool results kept in Redis so the model can page them with `read_more`."""

from __future__ import annotations

import hashlib

import redis

from atlas import tokens
from tools.context import StashPage

STASH_TTL_SECONDS = 24 * 3600
PAGE_TOKENS = 1_500


def _key(run_id: str, ref: str) -> str:
    return f"atlas:stash:{run_id}:{ref}"


class RedisStash:
    """One run's stashed results; refs are short content hashes, so the same text stashes once."""

    def __init__(self, conn: redis.Redis, run_id: str, page_tokens: int = PAGE_TOKENS) -> None:
        self.conn = conn
        self.run_id = run_id
        self.page_tokens = page_tokens

    def put(self, text: str) -> str:
        ref = "r" + hashlib.sha256(text.encode()).hexdigest()[:10]
        self.conn.set(_key(self.run_id, ref), text.encode(), ex=STASH_TTL_SECONDS)
        return ref

    def page(self, ref: str, offset: int) -> StashPage | None:
        """Tokens [offset, offset + page) of the stashed text; None for an unknown or expired ref."""
        raw = self.conn.get(_key(self.run_id, ref))
        if raw is None:
            return None
        encoded = tokens.encoding().encode(raw.decode(), disallowed_special=())
        chunk = encoded[offset : offset + self.page_tokens]
        end = offset + len(chunk)
        next_offset = end if end < len(encoded) else None
        return StashPage(text=tokens.encoding().decode(chunk), next_offset=next_offset)
