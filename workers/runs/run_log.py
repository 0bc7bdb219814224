"""Log lines that name the run: a worker works many runs at once, and a line without its run is noise.

The job being worked is a context variable, set by the worker around each job (its thread, and the tool
calls the run hands to the tool pool, which copy the context); a record factory puts it on every record
as `run`, which the worker's log format shows.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

NO_RUN = "-"
current: ContextVar[str] = ContextVar("atlas_run", default=NO_RUN)
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(run)s]: %(message)s"
_installed = False


@contextmanager
def working(job_id: str) -> Iterator[None]:
    """Every record logged inside (on this thread, or by a tool call it submits) names `job_id`."""
    token = current.set(job_id)
    try:
        yield
    finally:
        current.reset(token)


def install() -> None:
    """Give every record a `run` field, and the root handlers a format that shows it (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    make = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        record.run = current.get()
        return record

    logging.setLogRecordFactory(factory)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(logging.Formatter(FORMAT))
