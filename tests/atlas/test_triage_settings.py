"""The triage inbox's settings (issue 24): modes per action, triage off without a channel, and `labels=auto`
refused at start unless each auto label earned it in the last backtest (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.cli.triage import check_autonomy
from atlas.errors import ConfigError
from atlas.settings import Settings
from workers.triage import autonomy


def test_no_channel_is_off_a_channel_alone_drafts_everything_and_modes_are_per_action() -> None:
    assert not Settings.from_env({}).triage.enabled
    drafted = Settings.from_env({"ATLAS_TRIAGE_CHANNEL": "C1"}).triage
    assert (
        drafted.enabled
        and drafted.platform == "slack"
        and drafted.modes == {"duplicates": "draft", "labels": "draft", "reply": "draft"}
    )
    mixed = Settings.from_env(
        {"ATLAS_DISCORD_TRIAGE_CHANNEL": "9", "ATLAS_TRIAGE_ACTIONS": "duplicates=draft,labels=off,reply=shadow"}
    ).triage
    assert mixed.platform == "discord" and mixed.modes == {"duplicates": "draft", "labels": "off", "reply": "shadow"}
    assert mixed.skip_writers and not Settings.from_env({"ATLAS_TRIAGE_SKIP_WRITERS": "false"}).triage.skip_writers


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("reply=auto", "never automatic"),
        ("duplicates=auto", "never automatic"),
        ("labels=sometimes", "labels='sometimes'"),
        ("title=draft", "unknown action 'title'"),
        ("labels=auto", "ATLAS_TRIAGE_AUTO_LABELS"),
    ],
)
def test_malformed_actions_are_refused_naming_the_variable(raw: str, said: str) -> None:
    with pytest.raises(ConfigError, match="ATLAS_TRIAGE") as caught:
        Settings.from_env({"ATLAS_TRIAGE_CHANNEL": "C1", "ATLAS_TRIAGE_ACTIONS": raw})
    assert said in str(caught.value)


def test_auto_labels_start_only_when_each_earned_it_in_the_last_backtest(tmp_path: Path) -> None:
    data, home = tmp_path / "data", tmp_path / "home"
    data.mkdir()
    settings = Settings.from_env(
        {"ATLAS_TRIAGE_CHANNEL": "C1", "ATLAS_TRIAGE_ACTIONS": "labels=auto", "ATLAS_TRIAGE_AUTO_LABELS": "bug,docs"}
    )
    with pytest.raises(ConfigError, match="no backtest on this repository yet"):
        check_autonomy(settings.triage, data, home)
    per_label = {
        "bug": {"precision": 0.97, "recall": 0.5, "support": 40},
        "docs": {"precision": 0.9, "recall": 0.8, "support": 30},
    }
    autonomy.save(data, home, {"totals": {"labels": {"per_label": per_label}}})
    with pytest.raises(ConfigError, match=r"docs may not be auto: precision 0\.90 over 30 examples") as caught:
        check_autonomy(settings.triage, data, home)
    assert "bug" not in str(caught.value).replace("ATLAS_TRIAGE_AUTO_LABELS", "")  # bug earned it: not named
    per_label["docs"] = {"precision": 0.96, "recall": 0.7, "support": 20}
    autonomy.save(data, home, {"totals": {"labels": {"per_label": per_label}}})
    check_autonomy(settings.triage, data, home)  # both earned it: starts
