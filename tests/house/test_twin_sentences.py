"""Each sentence is written once: Slack's and Discord's wording (bot/slack/wording.py, bot/discord/wording.py)
share no sentence that says the same once the markup is removed. What both say is written in
workers/messages/wording.py with slots for markup, and each platform fills the slots with its own.

No twin is left (#37): a sentence both platforms show is written once, and a platform whose element carries the
style itself (Slack's bold section, its italic rich-text run) fills the slots with no marks.
"""

from __future__ import annotations

import ast
import re

from tests.support.paths import REPO

WORDING = (REPO / "bot" / "slack" / "wording.py", REPO / "bot" / "discord" / "wording.py")


def plain(sentence: str) -> str:
    """The words alone: no emphasis, no emoji (shortcode or character), no spacing differences, any case."""
    words = re.sub(r"[*_~]|:[a-z_]+:|[\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f?", "", sentence)
    return " ".join(words.split()).casefold()


def sentences(source: str) -> dict[str, str]:
    """name -> plain words of every sentence written out in a wording module (a literal, not one built elsewhere)."""
    return {
        target.id: plain(node.value.value)
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and node.value.value.strip()
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def twins(first: str, second: str) -> set[str]:
    """Names (in the first module) of sentences the second module also writes out, in the same words."""
    theirs = set(sentences(second).values())
    return {name for name, words in sentences(first).items() if words in theirs}


def test_the_check_sees_a_twin_through_the_markup() -> None:
    slack = 'A = "_Working on it..._"\nB = ":x: *Failed:* {reason}"\nC = said.C\nD = "Only here"\n'
    discord = 'X = "*Working on it...*"\nB = "\\u274c **Failed:** {reason}"\nC = said.C\nD = "Not here"\n'
    assert twins(slack, discord) == {"A", "B"}


def test_slack_and_discord_write_no_sentence_twice() -> None:
    slack, discord = (path.read_text() for path in WORDING)
    assert twins(slack, discord) == set()
