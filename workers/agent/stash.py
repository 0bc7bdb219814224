"""Full tool results kept in Redis so the model can page them with `read_more`."""

from __future__ import annotations

import hashlib

import redis

from atlas import tokens
from atlas.connection import text
from tools.context import StashPage
from tools.results import page_tokens

STASH_TTL_SECONDS = 24 * 3600
RESULT_TOKENS = 1_500
"""The loop's default result limit (`ContextBudget.result_token_limit`); pages fit it with their note."""


def _key(run_id: str, ref: str) -> str:
    return f"atlas:stash:{run_id}:{ref}"


class RedisStash:
    """One run's stashed results; refs are short content hashes, so the same text stashes once.

    `page_tokens` is the text a page shows: the loop passes `results.page_tokens(its limit)`, so a
    page plus its note is never cut again.
    """

    def __init__(self, conn: redis.Redis, run_id: str, page_tokens: int = page_tokens(RESULT_TOKENS)) -> None:
        self.conn = conn
        self.run_id = run_id
        self.page_tokens = page_tokens

    def put(self, text: str) -> str:
        ref = "r" + hashlib.sha256(text.encode()).hexdigest()[:10]
        self.conn.set(_key(self.run_id, ref), text.encode(), ex=STASH_TTL_SECONDS)
        return ref

    def page(self, ref: str, offset: int) -> StashPage | None:
        """About `page_tokens` tokens from `offset` (never splitting a character, ending on a line
        when one is near); None for an unknown or expired ref, or an offset past the end."""
        raw = self.conn.get(_key(self.run_id, ref))
        if raw is None:
            return None
        token_ids = tokens.ids(text(raw))
        if offset > 0 and offset >= len(token_ids):
            return None
        end = tokens.split_point(token_ids, offset, self.page_tokens)
        next_offset = end if end < len(token_ids) else None
        return StashPage(
            text=tokens.decode(token_ids[offset:end]), next_offset=next_offset, total_tokens=len(token_ids)
        )
