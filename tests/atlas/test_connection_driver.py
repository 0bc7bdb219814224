"""Atlas's Redis connections name their library and its version in CLIENT SETINFO without reading the installed
package's metadata, which redis-py otherwise does for every new connection (3 to 4 ms of CPU: most of a warm
`atlas ask`'s first command, issue 40)."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
import redis.utils

from atlas.connection import connect
from atlas.settings import Settings


def test_a_connection_names_redis_py_and_its_version_without_the_package_metadata(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def metadata_read() -> str:
        raise AssertionError("a new connection read the package's metadata")

    monkeypatch.setattr(redis.utils, "get_lib_version", metadata_read)
    conn = connect(Settings(data_dir=tmp_path / "data", home=tmp_path / "home", redis_url=redis_url))
    assert conn.ping()
    [me] = [c for c in conn.client_list() if c.get("id") == str(conn.client_id())]
    assert (me.get("lib-name"), me.get("lib-ver")) == ("redis-py", redis.__version__)
