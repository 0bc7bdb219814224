"""atlas/text.py: a clip ends in its marker, a list fitted to a budget says what it left out."""

from __future__ import annotations

from atlas.text import clip, fit_list
from bot.discord.views.answer import sources_text as discord_sources
from bot.slack.views.answer import sources_text as slack_sources
from workers.messages.answer import sources_of


def test_clip_keeps_short_text_and_marks_a_cut() -> None:
    assert clip("short", 10) == "short"
    assert clip("one two three", 8) == "one two…" and len(clip("one two three", 8)) <= 8


def test_fit_list_stops_before_the_budget_and_counts_the_rest() -> None:
    items = ["aaaa", "bbbb", "cccc", "dddd"]
    assert fit_list(items, 100) == items
    assert fit_list(items, 10) == ["aaaa", "bbbb", "+2 more"]  # "aaaa, bbbb" is 10 characters
    assert fit_list(items, 3) == ["+4 more"]


def test_a_long_sources_line_is_cut_with_a_count_on_both_platforms() -> None:
    sources = [f"#{n}" for n in range(1000, 1600)]
    for line in (
        slack_sources(sources_of(sources, docs_base_url=None, issues_base_url="https://x.example/issues/{id}")),
        discord_sources(sources_of(sources, docs_base_url=None, issues_base_url="https://x.example/issues/{id}")),
    ):
        assert "more" in line.rsplit(", ", 1)[-1] and "#1000" in line and "#1599" not in line
