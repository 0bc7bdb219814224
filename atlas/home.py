"""ATLAS_HOME, the local state folder (embedded Redis data, logs): checked before anything writes there."""

from __future__ import annotations

import tempfile
from pathlib import Path

from atlas.errors import ConfigError


def usable(home: Path) -> Path:
    """`home`, created if missing; ConfigError with one clear reason if it is a file or not writable."""
    if home.exists() and not home.is_dir():
        raise ConfigError(f"ATLAS_HOME={home} is a file, not a folder")
    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=home):
            pass
    except OSError as exc:
        raise ConfigError(f"ATLAS_HOME={home} is not a writable folder ({exc.strerror or exc})") from None
    return home
