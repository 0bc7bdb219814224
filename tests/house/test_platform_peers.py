"""Slack and Discord are peers: neither package imports the other. What both need (what a card shows, a
tool call's title) lives beside them in `bot/` (`bot/card_view.py`, `bot/task_titles.py`), and words both
show in `workers/wording.py`, so a change made for one platform cannot silently change the other.

Read from the same import graph as the layers (tests/house/test_import_graph.py): function-local and
type-only imports count too.
"""

from __future__ import annotations

from tests.house.test_import_graph import edges, matches

PEERS = ("bot.slack.", "bot.discord.")


def crossings(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import from one peer package into another, as 'module imports target, line n'."""
    found = []
    for module, targets in graph.items():
        home = next((p for p in PEERS if matches(module, p)), None)
        if home is None:
            continue
        for target, line in targets.items():
            if any(matches(target, other) for other in PEERS if other != home):
                found.append(f"{module} imports {target}, line {line}")
    return sorted(found)


def test_the_check_sees_a_crossing_either_way() -> None:
    planted = {"bot.discord.cards": {"bot.slack.card_view": 3, "bot.card_view": 4},
               "bot.slack": {"bot.discord.rest": 7}, "bot.console.app": {"bot.slack.client": 1}}
    assert crossings(planted) == ["bot.discord.cards imports bot.slack.card_view, line 3", "bot.slack imports bot.discord.rest, line 7"]


def test_slack_and_discord_import_nothing_of_each_other() -> None:
    assert crossings(edges()) == []
