"""Slack and Discord are peers: neither package reaches the other, directly or through any chain of Atlas's own
imports. What both need (what a card shows, a tool call's title, a fast-failing Redis) lives beside them in `bot/`
(`bot/fast_redis.py`), in the core's message values and their words (`workers/messages/`, a tool call's title in
`workers/messages/task_titles.py`) or below them (the votes in `workers/console_data/votes.py`), and words both show
in `workers/wording.py`, so a change made for one platform cannot silently change the other, not even through a
shared module that happens to import one of them.

Read from the same import graph as the layers (tests/house/test_import_graph.py): function-local and
type-only imports count too.
"""

from __future__ import annotations

from collections import deque

from tests.house.test_import_graph import edges, matches

PEERS = ("bot.slack.", "bot.discord.")


def _peer(module: str) -> str | None:
    return next((p for p in PEERS if matches(module, p)), None)


def crossings(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every module of one peer package that reaches another, with the shortest chain of imports that does."""
    found = []
    for module in graph:
        home = _peer(module)
        if home is None:
            continue
        came_from: dict[str, tuple[str, int] | None] = {module: None}
        queue = deque([module])
        reached = None
        while queue and reached is None:
            here = queue.popleft()
            for target, line in graph[here].items():
                if target in came_from or (target not in graph and _peer(target) is None):
                    continue
                came_from[target] = (here, line)
                if _peer(target) not in (None, home):
                    reached = target
                    break
                queue.append(target)
        if reached is None:
            continue
        steps = []
        node = reached
        while (step := came_from[node]) is not None:
            steps.append(f"{step[0]} (line {step[1]})")
            node = step[0]
        found.append(" -> ".join([*reversed(steps), reached]))
    return sorted(found)


def test_the_check_sees_a_crossing_either_way() -> None:
    planted = {
        "bot.discord.cards": {"bot.slack.card_view": 3, "bot.card_view": 4},
        "bot.slack": {"bot.discord.rest": 7},
        "bot.console.app": {"bot.slack.client": 1},
    }
    assert crossings(planted) == [
        "bot.discord.cards (line 3) -> bot.slack.card_view",
        "bot.slack (line 7) -> bot.discord.rest",
    ]


def test_the_check_sees_a_crossing_through_a_shared_module() -> None:
    """Discord -> a neutral module -> a module of workers -> Slack is a crossing too; a neutral module that
    only imports Slack (or is imported by Slack) is not."""
    planted = {
        "bot.discord.interactions": {"bot.feedback": 25, "workers.console_data.votes": 2},
        "bot.feedback": {"atlas.lua": 1, "workers.chat": 3},
        "workers.chat": {"bot.slack.wording": 9},
        "workers.console_data.votes": {"atlas.lua": 1},
        "atlas.lua": {},
        "bot.slack.wording": {},
        "bot.slack.app": {"workers.console_data.votes": 4},
        "bot.neutral": {"bot.slack.wording": 1},
    }
    assert crossings(planted) == [
        "bot.discord.interactions (line 25) -> bot.feedback (line 3) -> workers.chat (line 9) -> bot.slack.wording"
    ]


def test_slack_and_discord_reach_nothing_of_each_other() -> None:
    assert crossings(edges()) == []
