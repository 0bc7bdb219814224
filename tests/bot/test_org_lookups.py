"""The lookup command over several repositories (issue 38): `#42` is the channel's repository's, `owner/b#42`
and `b#42` name one; elsewhere every repository is looked in, each result naming its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.lookups import Lookup, Lookups, parse
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues

A, B = "acme/lib", "acme/cli"


@pytest.fixture
def lookups(tmp_path: Path) -> Lookups:
    a, b = make_dataset(tmp_path / "a"), make_dataset(tmp_path / "b")
    write_issues(a, ISSUES)
    write_issues(b, [{"id": 1, "title": "Quokka flag ignored by the CLI", "body": "quokka", "state": "open"}])
    return Lookups(a, tmp_path / "home", repos={A: a, B: b}, channel_repo={"C-cli": B}.get)


def test_issue_references_name_a_repository_or_none() -> None:
    assert parse("issue #42") == Lookup("issue", "42")
    assert parse("issue acme/cli#42") == Lookup("issue", "42", repo="acme/cli")
    assert parse("issue cli#42").text == "issue cli#42"  # what the share button replays
    assert parse("issue cli42").__class__.__name__ == "Usage"


def test_hash_number_is_the_channel_s_repository(lookups: Lookups) -> None:
    result = lookups.run(parse("issue #1"), "C-cli")  # type: ignore[arg-type]
    assert result.ok and "Quokka" in result.text and "Cron job" not in result.text


def test_a_named_repository_wins_over_the_channel(lookups: Lookups) -> None:
    for text in ("issue acme/lib#1", "issue lib#1"):
        result = lookups.run(parse(text), "C-cli")  # type: ignore[arg-type]
        assert result.ok and "Cron job ran twice" in result.text and "Quokka" not in result.text


def test_elsewhere_every_repository_is_looked_in_and_named(lookups: Lookups) -> None:
    result = lookups.run(parse("issue #1"), "C-general")  # type: ignore[arg-type]
    assert f"{A}#1" in result.text and f"{B}#1" in result.text


def test_an_unknown_repository_is_said(lookups: Lookups) -> None:
    result = lookups.run(parse("issue acme/web#1"))  # type: ignore[arg-type]
    assert not result.ok and "acme/web is not a repository this install serves" in result.text
