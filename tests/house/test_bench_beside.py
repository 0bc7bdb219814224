"""The Discord benchmark sets its ack figures beside the last Slack run's: it must read the table the Slack
suite writes today (bench/slack.py's ratio table), or `make bench` stops in the Discord suite."""

from __future__ import annotations

from dataclasses import asdict

from bench import discord, slack


def test_discord_reads_the_ack_table_the_slack_suite_writes() -> None:
    rows = [
        (
            ["Slack ack p99, 50 concurrent signed mentions, 1 process", "60.2 ms", "27.5 ms", "2.19x", "<= 1.5x", "NO"],
            [],
            False,
        ),
        (
            [
                "Slack ack p99, 50 concurrent signed mentions, 1 process, against the floor with one Redis round trip",
                "60.2 ms",
                "45.1 ms",
                "1.33x",
                "<= 1.5x",
                "yes",
            ],
            [],
            True,
        ),
        (
            [
                "Slack ack p99, 50 concurrent signed mentions, 2 processes",
                "36.8 ms",
                "16.2 ms",
                "2.28x",
                "<= 1.5x",
                "NO",
            ],
            [],
            False,
        ),
    ]
    written = asdict(slack.ack_latency(rows))  # as bench/report.py writes it to results/slack.json
    beside, p99 = discord.slack_ack_beside(written, processes=2)
    assert [(r[0], r[1], r[5]) for r in beside] == [("slack (last run)", 1, 60.2), ("slack (last run)", 2, 36.8)]
    assert {r[2] for r in beside} == {"50 at once"} and p99 == 36.8
    assert discord.slack_ack_beside(None, processes=2) == ([], None)
