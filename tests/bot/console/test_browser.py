"""The console in a real browser (issue 30): headless Chromium signs in with the token, opens every page, uses a
filter and a run's page, saves a screenshot of each into bench/results/, and no page reports a console error,
an exception, a blocked resource (CSP) or a dialog. A question holding `<script>` shows as text.

Skipped where no Chromium binary is found (PATH: chromium, chromium-browser, headless_shell, google-chrome;
or ATLAS_TEST_CHROMIUM=/path/to/chromium). Debian: `apt-get install chromium`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis

from tests.support.cdp import Browser, find_chromium
from tests.support.console_harness import TOKEN, finished_run, served
from tests.support.paths import REPO

CHROMIUM = find_chromium()
SHOTS = REPO / "bench" / "results"
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium binary (set ATLAS_TEST_CHROMIUM or install chromium)"
)


def test_a_browser_signs_in_opens_every_page_filters_and_reads_a_run(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    assert CHROMIUM is not None
    with served(redis_url, redis_conn) as console:
        finished_run(redis_conn, question="Why does <script>alert(1)</script> show up in my logs?")
        finished_run(redis_conn, question="Where are webhooks configured?", kind="discord", channel="D1", team="G1")
        finished_run(
            redis_conn,
            question="Can I rotate secrets?",
            answer="I could not find anything about this in the docs or the issue tracker.",
        )
        browser = Browser(CHROMIUM, tmp_path / "profile")
        try:
            browser.open(f"{console.url}/runs")  # no session: sent to sign in
            assert browser.evaluate("location.pathname") == "/console/signin"
            browser.submit(
                f"document.querySelector('input[name=token]').value = {json.dumps(TOKEN)};"
                "document.querySelector('input[name=token]').form.submit()"
            )
            assert browser.evaluate("location.pathname") == "/console/runs"
            assert "<script>alert(1)</script>" in browser.evaluate("document.body.innerText")  # shown as text
            assert browser.evaluate("document.scripts.length") == 0
            browser.screenshot(SHOTS / "console-runs.png")
            browser.submit(
                "document.querySelector('form.filters select[name=platform]').value = 'discord';"
                "document.querySelector('form.filters').submit()"
            )
            listed = browser.evaluate("document.body.innerText")
            assert "Where are webhooks configured?" in listed and "rotate secrets" not in listed
            browser.screenshot(SHOTS / "console-runs-filtered.png")
            browser.open(browser.evaluate("document.querySelector('a[href^=\"/console/runs/\"]').href"))
            assert "search_docs" in browser.evaluate("document.body.innerText")
            browser.screenshot(SHOTS / "console-run.png")
            for page, shows in (
                ("usage", "Questions per day"),
                ("gaps", "rotate secrets"),
                ("approvals", "Audit log"),
                ("health", "Redis memory"),
            ):
                browser.open(f"{console.url}/{page}")
                assert shows in browser.evaluate("document.body.innerText"), page
                browser.screenshot(SHOTS / f"console-{page}.png")
            assert browser.errors == [], browser.errors
        finally:
            browser.close()
