"""Running Atlas's Lua scripts on Redis, one way everywhere.

redis-py's `Script` (what `register_script` returns) sends EVALSHA and loads the script only when the
server lacks it (a restart, a new server): the script's text is not sent on every call, and a
pipeline registers it before it executes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
from redis.typing import EncodableT, KeyT


def run_script(conn: redis.Redis, source: str, keys: Sequence[KeyT] = (), args: Sequence[EncodableT] = ()) -> Any:
    """Run `source` with `keys` and `args`; its reply as Redis returned it."""
    return conn.register_script(source)(keys=keys, args=args)
