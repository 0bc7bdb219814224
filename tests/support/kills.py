"""A worker that dies right after a call reached its platform, in process: the call is made, then `Killed`
(a BaseException, as a SIGKILL leaves nothing after it to run) ends the code that made it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


class Killed(BaseException):
    """The worker dies here (a SIGKILL ends the process; nothing after it runs)."""


@contextmanager
def dies_after(target: Any, method: str) -> Iterator[None]:
    """Within the block, `target.method` makes its call and then the worker dies; the block must die so."""
    made = getattr(target, method)

    def killed(*args: Any, **kwargs: Any) -> None:
        made(*args, **kwargs)
        raise Killed  # the platform has it; the worker never records it

    setattr(target, method, killed)
    try:
        with pytest.raises(Killed):
            yield
    finally:
        setattr(target, method, made)
