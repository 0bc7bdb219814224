"""The console's Cost and use page shows today's spend by channel and repository against the caps (issue 38),
read from the day's spend the workers reserved and settled in Redis."""

from __future__ import annotations

import re
from pathlib import Path

import redis

from tests.support.console_harness import served
from workers.agent.spend import Ledger, Scope


def test_the_cost_page_shows_todays_spend_by_channel_and_repository_against_the_caps(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    config = tmp_path / "atlas.toml"
    config.write_text('[channels.C0HELP]\nrepo = "orbit-labs/orbit"\ndaily_cost_limit = 0.5\n\n[channels.C0QUIET]\n')
    ledger = Ledger(redis_conn)
    for scope, cost in (
        (Scope(repo="orbit-labs/orbit", channel="slack:C0HELP", install_cap=2.0, channel_cap=0.5), 0.5),
        (Scope(repo="orbit-labs/orbit-cli", channel="discord:112233445566778899", install_cap=2.0), 0.25),
        (Scope(repo="orbit-labs/orbit", install_cap=2.0), 0.125),  # triage: no channel
    ):
        ledger.settle(ledger.reserve(scope, 0.01), cost)
    with served(redis_url, redis_conn, ATLAS_CONFIG=str(config), ATLAS_DAILY_COST_LIMIT="2") as console:
        page = console.signed_in().get("/usage").text
    today = page.split("Today against the caps")[1].split("Last 30 days")[0]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", today)]
    assert ["Whole install", "$0.8750", "$2.00", "44%"] in cells
    assert ["slack", "C0HELP", "orbit-labs/orbit", "$0.5000", "$0.5000", "100% (reached)"] in cells
    assert ["slack", "C0QUIET", "demo:Orbit", "$0.0000", "-", "no cap"] in cells  # named in the file, spent nothing
    assert ["discord", "112233445566778899", "demo:Orbit", "$0.2500", "-", "no cap"] in cells
    assert ["orbit-labs/orbit", "$0.6250"] in cells and ["orbit-labs/orbit-cli", "$0.2500"] in cells
    assert "the caps reset at 00:00 UTC" in today
