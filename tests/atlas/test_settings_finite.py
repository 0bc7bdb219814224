"""Settings: a number that is not finite (nan, inf, a literal too large for a float) is refused at start, naming the
variable."""

from __future__ import annotations

import pytest

from atlas.errors import ConfigError
from atlas.settings import Settings

FLOAT_SETTINGS = (
    "ATLAS_MAX_SECONDS",
    "ATLAS_DRAFT_MAX_SECONDS",
    "ATLAS_TOOL_TIMEOUT",
    "ATLAS_MODEL_TIMEOUT",
    "ATLAS_SLACK_OUTAGE_SECONDS",
    "ATLAS_SLACK_RETRY_CAP",
    "ATLAS_REDIS_RETRY_CAP",
    "ATLAS_CONSOLE_SESSION_HOURS",
)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "Infinity", "1e999"])
@pytest.mark.parametrize("name", FLOAT_SETTINGS)
def test_a_number_that_is_not_finite_is_refused_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{name} must be a finite number, got {value!r}$"):
        Settings.from_env({name: value})


@pytest.mark.parametrize("value", ["nan,0.5,2", "1,inf,2", "1,0.5,-inf"])
def test_a_price_that_is_not_finite_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match="^ATLAS_PRICE must be"):
        Settings.from_env({"ATLAS_PRICE": value})


def test_finite_numbers_are_still_read() -> None:
    settings = Settings.from_env(
        {"ATLAS_MAX_SECONDS": "12.5", "ATLAS_SLACK_OUTAGE_SECONDS": "1e3", "ATLAS_PRICE": "1,0.5,2"}
    )
    assert settings.budget.max_seconds == 12.5 and settings.slack_outage_seconds == 1000.0
