"""Every `atlas` failure is one clear line on stderr and a non-zero exit code, never a traceback."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pytest
from rq import Worker

from atlas.cli.main import parser
from tests.standins.slack_api import SlackAPI
from tests.support.processes import REPO, atlas_command, free_port
from tests.support.tools_dataset import make_dataset


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("[atlas] ")]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return make_dataset(tmp_path / "data")


def _duplicate_id(data: Path) -> None:
    issues = data / "issues" / "issues.jsonl"
    first = issues.read_text().splitlines()[0]
    issues.write_text(issues.read_text() + first + "\n")


def _non_utf8_doc(data: Path) -> None:
    (data / "docs" / "broken.md").write_bytes(b"---\ntitle: Broken\n---\n# Broken\n\n\xff\xfe caf\xe9\n")


# -- atlas tool ---------------------------------------------------------------------------------


def test_tool_exits_zero_on_a_result_and_one_on_an_error_result(tmp_path: Path, data: Path) -> None:
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data)}
    ok = atlas_command("tool", "calculate", '{"expression": "6*7"}', env=env)
    assert ok.returncode == 0 and ok.stdout.strip() == "6*7 = 42"
    for args in (
        ("get_issue", '{"issue_id": 99999, "include": []}'),
        ("get_issue", '{"issue_id": true, "include": []}'),
        ("nope", "{}"),
        ("get_issue", '{"issue_id": 99999999999999999999, "include": []}'),
    ):
        bad = atlas_command("tool", *args, env=env)
        assert (
            bad.returncode == 1 and bad.stdout.startswith("Error: ") and "Traceback" not in bad.stdout + bad.stderr
        ), args


def test_tool_names_the_file_and_the_problem_of_bad_issue_data(tmp_path: Path, data: Path) -> None:
    _duplicate_id(data)
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data)}
    done = atlas_command("tool", "get_issue", '{"issue_id": 1, "include": []}', env=env)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert line.startswith("atlas tool: ") and "issues.jsonl:10: issue id 1 is already used on line 1" in line


def test_a_broken_doc_page_is_a_docs_tool_error_naming_it_and_issue_lookups_still_work(
    tmp_path: Path, data: Path
) -> None:
    """The docs index is built when something first reads it (issue 38): a page that is not UTF-8 fails the docs
    tools with an error the model and the operator can read (the file and the byte), not the issue tools."""
    _non_utf8_doc(data)
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data)}
    docs = atlas_command("tool", "search_docs", '{"query": "broken", "k": 3}', env=env)
    assert docs.returncode == 1
    assert docs.stdout.startswith("Error: The project's data could not be read: broken.md: not UTF-8 text (byte 33)")
    assert str(data) not in docs.stdout and "Traceback" not in docs.stdout + docs.stderr
    issue = atlas_command("tool", "get_issue", '{"issue_id": 1, "include": []}', env=env)
    assert issue.returncode == 0 and "#1" in issue.stdout


# -- atlas ask ----------------------------------------------------------------------------------


def test_ask_on_bad_data_says_why_at_once_and_starts_no_worker(
    tmp_path: Path, data: Path, redis_url: str, redis_conn
) -> None:  # noqa: ANN001
    _duplicate_id(data)
    env = {"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": redis_url}
    done = atlas_command("ask", "What does ORB-1202 mean?", env=env, timeout=60)
    assert done.returncode == 2
    assert "issue id 1 is already used" in _one_line(done.stderr)
    assert Worker.all(connection=redis_conn) == [] and list(redis_conn.scan_iter("atlas:run:*")) == []


def test_ask_notices_that_the_worker_it_started_died_and_says_why(tmp_path: Path, data: Path, redis_url: str) -> None:
    env = {
        "ATLAS_HOME": str(tmp_path / "home"),
        "ATLAS_DATA": str(data),
        "REDIS_URL": redis_url,
        # the repository first: the fault module imports workers.process.runtime before `-m` adds the cwd
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests" / "faults")]),
        "ATLAS_FAULT_WORKER_START": "the worker could not start",
    }
    # --timeout 300 as a user has it: a subprocess deadline far below it proves ask did not wait it out
    done = atlas_command("ask", "--timeout", "300", "What does ORB-1202 mean?", env=env, timeout=90)
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert line.startswith("atlas ask: the background worker exited at start") and "the worker could not start" in line


# -- ATLAS_HOME, Redis --------------------------------------------------------------------------


@pytest.mark.parametrize("command", [("ask", "hello?"), ("audit",), ("worker", "--burst"), ("redis", "start")])
def test_an_atlas_home_that_is_a_file_is_one_line(tmp_path: Path, data: Path, command: tuple[str, ...]) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder")
    done = atlas_command(*command, env={"ATLAS_HOME": str(home), "ATLAS_DATA": str(data)}, timeout=60)
    assert done.returncode == 2
    assert f"ATLAS_HOME={home} is a file, not a folder" in _one_line(done.stderr)


@pytest.mark.parametrize("command", [("ask", "hello?"), ("audit",), ("audit", "--json")])
def test_redis_unreachable_is_one_line_without_the_password(
    tmp_path: Path, data: Path, command: tuple[str, ...]
) -> None:
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    done = atlas_command(
        *command, env={"ATLAS_HOME": str(tmp_path / "home"), "ATLAS_DATA": str(data), "REDIS_URL": url}, timeout=60
    )
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert (
        line.startswith(f"atlas {command[0]}: Redis is unreachable at redis://:***@127.0.0.1:")
        and "hunter2" not in done.stderr
    )


# -- atlas serve --------------------------------------------------------------------------------


def test_serve_with_a_token_slack_refuses_is_one_line(tmp_path: Path, data: Path, redis_url: str) -> None:
    with SlackAPI() as api:
        env = {
            "ATLAS_HOME": str(tmp_path / "home"),
            "ATLAS_DATA": str(data),
            "REDIS_URL": redis_url,
            **api.env(),
            "SLACK_BOT_TOKEN": "xoxb-not-the-right-one",
            "SLACK_SIGNING_SECRET": "s",
            "PORT": str(free_port()),
        }
        done = atlas_command("serve", env=env, timeout=60)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert line == "atlas serve: configuration error: Slack refused SLACK_BOT_TOKEN (auth.test: invalid_auth)"
    assert "xoxb-not-the-right-one" not in done.stderr


@pytest.mark.parametrize("socket_mode", [False, True])
def test_serve_with_slack_unreachable_is_one_line(
    tmp_path: Path, data: Path, redis_url: str, socket_mode: bool
) -> None:
    api_url = f"http://127.0.0.1:{free_port()}/api/"
    env = {
        "ATLAS_HOME": str(tmp_path / "home"),
        "ATLAS_DATA": str(data),
        "REDIS_URL": redis_url,
        "SLACK_API_URL": api_url,
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "s",
        "SLACK_APP_TOKEN": "xapp-1",
        "PORT": str(free_port()),
    }
    done = atlas_command("serve", *(["--socket"] if socket_mode else []), env=env, timeout=60)
    assert done.returncode == 1
    assert _one_line(done.stderr).startswith(f"atlas serve: Slack's Web API at {api_url} is unreachable")


# -- help ---------------------------------------------------------------------------------------


def test_every_subcommand_describes_itself_and_each_argument() -> None:
    subcommands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subcommands.choices) == {
        "ask",
        "worker",
        "serve",
        "mcp",
        "discord",
        "tool",
        "runs",
        "audit",
        "dataset",
        "eval",
        "sync",
        "redis",
        "triage",
        "knowledge",
        "config",  # issue 38: atlas.toml
    }
    for name, sub in subcommands.choices.items():
        assert sub.description and len(sub.description) > 20, name
        for action in sub._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, f"atlas {name}: {action.dest} has no help"


def test_help_output_shows_the_descriptions(tmp_path: Path) -> None:
    done = atlas_command("tool", "--help", env={"ATLAS_HOME": str(tmp_path)})
    shown = " ".join(done.stdout.split())
    assert done.returncode == 0 and "Exits 1 when the tool answers with an error" in shown
    assert "the tool's name" in shown and "its arguments as a JSON object" in shown


def test_the_shipped_demo_still_answers(tmp_path: Path) -> None:
    """The checks above must not refuse good data: the bundled Orbit folder passes them."""
    copy = tmp_path / "orbit"
    shutil.copytree(REPO / "datasets" / "orbit", copy, ignore=shutil.ignore_patterns("*.db", "*.db-*", "*.journal*"))
    done = atlas_command(
        "tool",
        "get_issue",
        json.dumps({"issue_id": 1, "include": []}),
        env={"ATLAS_HOME": str(tmp_path / "h"), "ATLAS_DATA": str(copy)},
    )
    assert done.returncode == 0 and done.stdout.startswith("#1 ")
