"""Hand-written material for the Orbit issue tracker dataset.

Each story module holds `SPECS` (original issues) and usually `DUPLICATES` (later reports of the
same problem, worded differently). `all_specs()` returns them in a fixed order; the generator in
`datasets.generate` assigns ids, authors and dates.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import (
    brokers,
    config_upgrade,
    dst,
    k8s,
    lease,
    logs,
    long_issue,
    memory,
    oidc,
    payload,
    reconnect,
    retries_workers,
    spam,
    starters,
    tooling,
    wishlist,
)
from .model import Spec

_MODULES = (
    dst,
    reconnect,
    long_issue,
    oidc,
    lease,
    memory,
    k8s,
    payload,
    brokers,
    config_upgrade,
    retries_workers,
    tooling,
    starters,
    wishlist,
    spam,
)

EXCERPTS: dict[str, Callable[[random.Random, list[str], bool], list[logs.Event]]] = {
    **logs.EXCERPTS,
    "storm": long_issue.storm_events,
    "staging": long_issue.staging_events,
}


def all_specs() -> list[Spec]:
    """Every hand-written issue, originals before duplicates, in a fixed order."""
    originals = [spec for module in _MODULES for spec in module.SPECS]
    duplicates = [spec for module in _MODULES for spec in getattr(module, "DUPLICATES", [])]
    return originals + duplicates
