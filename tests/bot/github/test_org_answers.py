"""An answer in an organization's channel is about its repository (issue 38): the prompt names the channel's
repository (every one in a channel about none), the footer links each cited issue to the repository it belongs
to, and the run's record keeps its repository for the console and `atlas runs show`. Real worker, stand-ins."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import redis

from atlas.cli.show_run import describe
from tests.standins.responses_api import Call, reply_calls
from tests.standins.turns import Turn, reply_text
from tests.support.org_stack import CLI, GENERAL, Up, org_stack
from tests.support.processes import worker_process
from workers.runs.state import RunState
from workers.runs.store import RunStore

SEARCH = {"query": "the", "state": None, "limit": 20, "detail": "concise", "repo": None}


def _cites(form: str) -> Any:
    """The model's answer, citing the first acme/cli issue its search returned, written as `form` ("#{n}")."""

    def turn(request: dict[str, Any]) -> Turn:
        outputs = [
            i["output"] for i in request["input"] if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        number = re.search(r"acme/cli#(\d+)", outputs[-1])
        assert number is not None, outputs[-1][:300]
        return reply_text(f"People report it in {form.format(n=number.group(1))}.")

    return turn


def _run_of(conn: redis.Redis, channel: str, ts: str) -> RunState:
    for key in conn.scan_iter("atlas:run:*"):
        name = key.decode()
        if name.count(":") != 2:
            continue
        run = RunStore(conn).load(name.rsplit(":", 1)[1])
        if run.origin.channel == channel and ts in (run.origin.thread_ts, run.origin.message_ts):
            return run
    raise AssertionError(f"no run of {channel} {ts}")


def _thread_text(up: Up, channel: str, ts: str) -> str:
    return json.dumps(up.slack.thread(channel, ts))


@pytest.mark.timeout(400)
def test_answers_name_and_link_their_own_repository(atlas_env: dict[str, str]) -> None:
    with org_stack(atlas_env) as up:
        up.model.script(
            reply_calls([Call("search_issues", SEARCH, "s_cli")]),
            _cites("#{n}"),
            reply_calls([Call("search_issues", SEARCH, "s_all")]),
            _cites("acme/cli#{n}"),
        )
        with worker_process(up.org.env, "org-answers-worker"):
            mapped = up.ask(CLI, "what do people report?", "1700000200.000100")
            up.answered(CLI, mapped, "People report it in")
            anywhere = up.ask(GENERAL, "what do people report?", "1700000300.000100")
            up.answered(GENERAL, anywhere, "People report it in")
        first, _, third, _ = up.model.bodies()
        assert "the GitHub repository acme/cli" in first["instructions"]
        assert "acme/rocket" not in first["instructions"]
        assert "acme/rocket" in third["instructions"] and "acme/cli" in third["instructions"]

        in_cli = _run_of(up.conn, CLI, mapped)
        number = re.search(r"#(\d+)", in_cli.answer or "").group(1)  # type: ignore[union-attr]
        footer = _thread_text(up, CLI, mapped)
        assert f"https://github.com/acme/cli/issues/{number}" in footer
        assert "github.com/acme/rocket/issues/" not in footer

        in_general = _run_of(up.conn, GENERAL, anywhere)
        other = re.search(r"acme/cli#(\d+)", in_general.answer or "").group(1)  # type: ignore[union-attr]
        assert f"https://github.com/acme/cli/issues/{other}" in _thread_text(up, GENERAL, anywhere)
        assert "acme/cli#" + other in in_general.sources

        assert in_cli.repo == "acme/cli" and in_general.repo is None  # none: every repository was searched
        assert "repository: acme/cli" in describe(in_cli)
        assert "repository: every one served" in describe(in_general, many=True)
        assert "repository:" not in describe(in_general)
