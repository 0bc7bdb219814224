"""The console's query input (issue 35): a `before` that is no run's time is a 400 saying so, not a 503 that
logs a Redis outage (`float("nan")` passed the old check and Redis refused it)."""

from __future__ import annotations

import logging

import pytest
import redis

from tests.support.console_harness import finished_run, served


def test_a_before_that_is_not_a_finite_number_is_400_and_no_outage_is_logged(
    redis_url: str, redis_conn: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    with served(redis_url, redis_conn) as console, caplog.at_level(logging.WARNING):
        finished_run(redis_conn, question="a kept run")
        browser = console.signed_in()
        for raw in ("nan", "inf", "-inf", "NaN", "1e999"):
            page = browser.get("/runs", params={"before": raw})
            assert page.status_code == 400 and "before must be a run's time" in page.text, raw
        assert "Redis is unavailable" not in caplog.text
        assert "a kept run" in browser.get("/runs", params={"before": "9999999999"}).text
