"""The word evidence for labels (workers/triage/label_words.py): what a report's words meant on the earlier
labelled issues, as of its creation, and how it moves a label's score beside the neighbours' vote."""

from __future__ import annotations

from collections import Counter

from tests.support.triage_data import engine, issue
from workers.triage.cues import sections
from workers.triage.label_words import MIN_WORD, LabelWords
from workers.triage.similarity import AsOfIndex


def _model(said: list[set[str]], families: list[frozenset[str]]) -> LabelWords:
    """Issues showing the terms `said[seq]` and carrying `families[seq]`, with no cue or section."""
    return LabelWords(AsOfIndex([Counter(words) for words in said]), families, [frozenset()] * len(said))


def _rows() -> list[dict[str, object]]:
    """Six vim-plugin reports (label `C: vim`, each about something else) and six others, none saying vim."""
    rows = [
        issue(i + 1, f"Plugin {topic} problem", f"The vim plugin fails when {topic} is set.", ["C: vim", "T: bug"])
        for i, topic in enumerate(["encoding", "paths", "config", "virtualenv", "python3", "timeouts"])
    ]
    rows += [
        issue(10 + i, f"Formatter {topic} problem", f"Black fails when {topic} is set.", ["T: bug"])
        for i, topic in enumerate(["encoding", "paths", "config", "virtualenv", "python3", "timeouts"])
    ]
    return rows


def test_a_word_the_labels_earlier_issues_shared_raises_its_probability_and_later_issues_do_not_count() -> None:
    said = [{"vim", "plugin"}] * 6 + [{"plugin"}] * 6 + [{"vim"}] * 6
    families = [frozenset({"vim", "bug"})] * 6 + [frozenset({"bug", "design"})] * 6 + [frozenset({"design"})] * 6
    model = _model(said, families)
    with_vim, without = model.rates({"vim"}, (), 12), model.rates({"other"}, (), 12)
    assert with_vim["vim"] > 0.6 > 0.5 == without["vim"]  # without: the prior alone, half the labelled issues
    # As of seq 12 the six later `design` issues saying vim are unseen; as of 18 they pull vim towards design.
    assert model.rates({"vim"}, (), 18)["design"] > with_vim["design"]
    assert model.rates({"vim"}, (), MIN_WORD - 1) == {}  # too few labelled issues to model any family


def test_a_word_seen_on_too_few_issues_says_nothing() -> None:
    said = [{"rare"}] * (MIN_WORD - 1) + [{"common"}] * 6
    families = [frozenset({"vim"})] * (MIN_WORD - 1) + [frozenset({"vim"})] * 2 + [frozenset({"bug"})] * 4
    model = _model(said, families)
    assert model.rates({"rare"}, (), len(said)) == model.rates((), (), len(said))
    assert model.rates({"common"}, (), len(said)) != model.rates((), (), len(said))


def test_the_words_raise_a_label_the_neighbours_only_half_agree_on() -> None:
    book = engine(_rows()).book
    title, body = "Plugin crash", "The vim plugin crashes on save."
    half = {"vim": 0.5, "bug": 1.0}  # the neighbours' vote: half of them carry `C: vim`
    with_words = {n: s for n, s, _ in book.scores(half, title, body, 12)}
    without_words = {n: s for n, s, _ in book.scores(half, "Formatter crash", "It crashes on save.", 12)}
    assert with_words["C: vim"] > 0.5 > without_words["C: vim"]  # the vote alone gave 0.5 either way


def test_a_templates_section_headings_are_evidence() -> None:
    body = "### Describe the bug\nIt crashes.\n\n**Expected behavior**\nNo crash.\n## Environment:\nLinux\n# \n"
    assert sections(body) == {"section:describe the bug", "section:expected behavior", "section:environment"}
    assert not sections("Plain text with a **bold** word and a #12 reference.")
    reports = [frozenset({"section:feature request"})] * 4 + [frozenset({"section:describe the bug"})] * 4
    families = [frozenset({"enhancement"})] * 4 + [frozenset({"bug"})] * 4
    model = LabelWords(AsOfIndex([Counter({"black": 1})] * 8), families, reports)
    asked = model.rates({"black"}, {"section:feature request"}, 8)
    assert asked["enhancement"] > 0.5 > asked["bug"]  # the template says which kind of report it is
