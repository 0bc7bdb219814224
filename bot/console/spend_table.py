"""The Cost and use page's "Today against the caps" (issue 38): today's spend (UTC) by channel and by repository,
as the workers reserved and settled it in Redis (workers/agent/spend.py), beside each cap: the install's
(ATLAS_DAILY_COST_LIMIT) and each channel's (atlas.toml). One read: the day's hash."""

from __future__ import annotations

import time

import redis

from atlas.channel_plan import install_repo, plan
from atlas.settings import Settings
from bot.console.layout import table
from bot.console.web import esc
from workers.agent.spend import INSTALL, Ledger, day_of, next_midnight


def _money(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}" if value < 1 else f"${value:.2f}"


def _share(spent: float, cap: float | None) -> str:
    if cap is None:
        return "no cap"
    if cap == 0:
        return "reached" if spent >= 0 else "-"
    return f"{100 * spent / cap:.0f}%" + (" (reached)" if spent >= cap else "")


def render(conn: redis.Redis, settings: Settings, now: float | None = None) -> str:
    """The section's HTML: the install, then every channel that spent today or has a cap, then every repository."""
    now = time.time() if now is None else now
    spent = Ledger(conn, clock=lambda: now).day(day_of(now))
    total = spent.get(INSTALL, 0.0)
    left = int(next_midnight(now) - now) // 60
    head = (
        f"<h2>Today against the caps</h2><p>{esc(day_of(now))} (UTC); the caps reset at 00:00 UTC, "
        f"in {left // 60} h {left % 60} min.</p>"
    )
    install = table(
        ["", "Spent today", "Daily cap", "Used"],
        [
            [
                "Whole install",
                esc(_money(total)),
                esc(_money(settings.daily_cost_limit)),
                esc(_share(total, settings.daily_cost_limit)),
            ]
        ],
        frozenset({1, 2, 3}),
    )
    channels = {f.removeprefix("channel:") for f in spent if f.startswith("channel:")}
    channels |= {f"{c.platform}:{c.channel}" for c in settings.channels.channels}
    rows = []
    for key in sorted(channels):
        kind, _, channel = key.partition(":")
        mine = plan(settings, channel, kind)
        amount = spent.get(f"channel:{key}", 0.0)
        rows.append(
            [
                esc(kind),
                esc(channel),
                esc(mine.repo or install_repo(settings)),
                esc(_money(amount)),
                esc(_money(mine.daily_cost_limit)),
                esc(_share(amount, mine.daily_cost_limit)),
            ]
        )
    by_channel = table(
        ["Platform", "Channel", "Repository", "Spent today", "Daily cap", "Used"], rows, frozenset({3, 4, 5})
    )
    repos = sorted((f.removeprefix("repo:"), v) for f, v in spent.items() if f.startswith("repo:"))
    by_repo = table(["Repository", "Spent today"], [[esc(r), esc(_money(v))] for r, v in repos], frozenset({1}))
    return (
        f"{head}{install}<h3>By channel</h3>{by_channel if rows else '<p>No channel has spent today.</p>'}"
        f"<h3>By repository</h3>{by_repo if repos else '<p>Nothing spent today.</p>'}"
    )
