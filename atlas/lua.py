"""Running Atlas's Lua scripts on Redis, one way everywhere.

redis-py's `Script` (what `register_script` returns) sends EVALSHA and loads the script only when the
server lacks it (a restart, a new server): the script's text is not sent on every call, and a
pipeline registers it before it executes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
from redis.commands.core import Script
from redis.typing import EncodableT, KeyT

# One `Script` per source for the process: its SHA1 is worked out once, not on every call (a few calls per run).
_SCRIPTS: dict[str, Script] = {}


def run_script(conn: redis.Redis, source: str, keys: Sequence[KeyT] = (), args: Sequence[EncodableT] = ()) -> Any:
    """Run `source` with `keys` and `args` on `conn` (a client or a pipeline); its reply as Redis returned it."""
    script = _SCRIPTS.get(source)
    if script is None:
        script = _SCRIPTS[source] = Script(conn, source)
    return script(keys=keys, args=args, client=conn)
