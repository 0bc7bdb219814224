"""`atlas config check` prints what each channel of atlas.toml will do and where each value came from; a bad
file stops `atlas serve` and `atlas worker` with its line and the reason, before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.cli.failures import CONFIG_EXIT
from atlas.cli.main import main

FILE = """\
[channels.C0HELP]
repo = "orbit-labs/orbit"
help = true
handoff = ["S0MAINT"]
model = "gpt-6-sol"
price = [1.0, 0.1, 4.0]
max_steps = 4
daily_cost_limit = 2.5
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ATLAS_HELP_CHANNELS", "ATLAS_DAILY_COST_LIMIT", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ATLAS_MODEL"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "atlas.toml"
    monkeypatch.setenv("ATLAS_CONFIG", str(path))
    monkeypatch.setenv("ATLAS_HOME", str(tmp_path / "home"))
    return path


def test_check_prints_each_channel_and_which_of_the_file_and_the_environment_it_follows(
    config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config.write_text(FILE)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ATLAS_DAILY_COST_LIMIT", "25")
    monkeypatch.setenv("ATLAS_HELP_CHANNELS", "C0OTHER")
    assert main(["config", "check"]) == 0
    out = capsys.readouterr().out
    assert "The file wins for the channels it names; the environment is the default" in out
    assert "slack channel C0HELP:" in out and "repository    orbit-labs/orbit (atlas.toml)" in out
    assert "help channel  yes (atlas.toml)" in out and "hand-off      S0MAINT (atlas.toml)" in out
    assert "model         gpt-6-sol (atlas.toml)" in out and "warning" not in out  # its price is in the file
    assert "4 steps (atlas.toml), 100000 tokens (environment)" in out
    assert "daily cap     $2.50 a day (atlas.toml), within the install's $25.00 a day" in out
    assert "help channels from the environment only: C0OTHER" in out


@pytest.mark.parametrize("command", [["serve"], ["worker", "--burst"], ["config", "check"]])
def test_a_bad_file_stops_the_command_with_its_line_and_reason(
    config: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    config.write_text(FILE.replace("max_steps = 4", "max_steps = 'four'"))
    assert main(command) == CONFIG_EXIT
    err = capsys.readouterr().err
    assert f"{config} line 7: channel C0HELP, key 'max_steps': must be a whole number" in err
    assert "Traceback" not in err


def test_serve_and_worker_log_each_channel_the_file_takes_from_the_environments_help_lists(config: Path) -> None:
    from atlas.cli.config_check import overrides
    from atlas.settings import Settings

    config.write_text(FILE + '\n[channels."112233445566778899"]\nhelp = false\n')
    settings = Settings.from_env({"ATLAS_CONFIG": str(config), "ATLAS_DISCORD_HELP_CHANNELS": "112233445566778899"})
    assert overrides(settings) == [
        "atlas.toml makes 112233445566778899 not a help channel, against the environment's help channel lists;"
        " the file wins",
        "atlas.toml makes C0HELP a help channel, against the environment's help channel lists; the file wins",
    ]
