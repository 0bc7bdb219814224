"""ATLAS_WORKER_CONCURRENCY: a whole number of runs from 1 to 1000, 16 when unset; anything else is refused by name."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.run_limits import DEFAULT_WORKER_CONCURRENCY, worker_concurrency
from atlas.settings import Settings


def test_the_default_and_a_chosen_concurrency() -> None:
    assert Settings.from_env({}).worker_concurrency == DEFAULT_WORKER_CONCURRENCY == 16
    assert Settings.from_env({"ATLAS_WORKER_CONCURRENCY": "100"}).worker_concurrency == 100
    assert (
        Settings.from_env({"ATLAS_WORKER_CONCURRENCY": "1"}).worker_concurrency == 1
    )  # the former worker, one run at a time


@pytest.mark.parametrize("value", ["0", "-3", "1001", "many", "2.5"])
def test_a_concurrency_that_is_not_a_number_of_runs_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(ConfigError, match="ATLAS_WORKER_CONCURRENCY"):
        Settings.from_env({"ATLAS_WORKER_CONCURRENCY": value})
    with pytest.raises(ConfigError, match="--concurrency"):
        worker_concurrency(value, "--concurrency")
