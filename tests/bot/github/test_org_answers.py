"""An answer in an organization's channel is about its repository (issue 38): the prompt names the channel's
repository (every one in a channel about none), the footer links each cited issue to the repository it belongs
to, and the run's record keeps its repository for the console and `atlas runs show`. Real worker, stand-ins."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
import redis

from atlas.cli.show_run import describe
from bot.slack.views.answer import FILE_ISSUE_ACTION
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.responses_api import Call, reply_calls
from tests.standins.slack_interactions import block_action
from tests.standins.turns import Turn, reply_text
from tests.support.approvals_harness import is_card, pending_id
from tests.support.org_stack import CLI, GENERAL, MAINTAINER, Up, org_stack
from tests.support.processes import wait_for, worker_process
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


def _cites_doc(request: dict[str, Any]) -> Turn:
    """The model's answer citing the first acme/cli doc its search showed, by its id alone (`id`)."""
    outputs = [i["output"] for i in request["input"] if isinstance(i, dict) and i.get("type") == "function_call_output"]
    doc = re.search(r"^- acme/cli: (\S+)", outputs[-1], re.MULTILINE)
    assert doc is not None, outputs[-1][:300]
    return reply_text(f"It is in the CLI's docs (`{doc.group(1)}`).")


@pytest.mark.timeout(400)
def test_answers_name_and_link_their_own_repository(atlas_env: dict[str, str]) -> None:
    with org_stack(atlas_env) as up:
        up.model.script(
            reply_calls([Call("search_issues", SEARCH, "s_cli")]),
            _cites("#{n}"),
            reply_calls([Call("search_issues", SEARCH, "s_all")]),
            _cites("acme/cli#{n}"),
            reply_calls([Call("search_docs", {"query": "install setup", "k": 5, "repo": None}, "d_all")]),
            _cites_doc,
        )
        with worker_process(up.org.env, "org-answers-worker"):
            mapped = up.ask(CLI, "what do people report?", "1700000200.000100")
            up.answered(CLI, mapped, "People report it in")
            anywhere = up.ask(GENERAL, "what do people report?", "1700000300.000100")
            up.answered(GENERAL, anywhere, "People report it in")
            docs = up.ask(GENERAL, "how do I install it?", "1700000350.000100")
            up.answered(GENERAL, docs, "It is in the CLI's docs")
        first, _, third, *_ = up.model.bodies()
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

        in_docs = _run_of(up.conn, GENERAL, docs)
        cited = re.search(r"`(\S+)`", in_docs.answer or "").group(1)  # type: ignore[union-attr]
        assert f"acme/cli: {cited}" in in_docs.sources  # a doc of every repository's search, under its name

        assert in_cli.repo == "acme/cli" and in_general.repo is None  # none: every repository was searched
        assert in_cli.answered_by is not None
        assert in_cli.answered_by.data_dir == str(up.org.settings.for_repo("acme/cli").data_dir)
        assert "repository: acme/cli" in describe(in_cli)
        assert "repository: every one served" in describe(in_general, many=True)
        assert "repository:" not in describe(in_general)


def _file_button(message: dict[str, Any]) -> str | None:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or [] if block.get("type") == "actions" else []:
            if element.get("action_id") == FILE_ISSUE_ACTION:
                return str(element["value"])
    return None


def _click_file(up: Up, channel: str, thread: str) -> None:
    answer = copy.deepcopy(
        wait_for(
            lambda: next((m for m in up.slack.thread(channel, thread) if _file_button(m)), None),
            timeout=90,
            what="the answer's File as GitHub issue button",
        )
    )
    body = block_action(
        FILE_ISSUE_ACTION,
        _file_button(answer) or "",
        user="U0ASKER",
        channel=channel,
        message_ts=answer["ts"],
        thread_ts=thread,
    )
    body["message"] = {"ts": answer["ts"], "thread_ts": thread, "blocks": answer["blocks"]}
    assert up.send.interaction(body).status == 200


@pytest.mark.timeout(400)
def test_an_answer_is_filed_in_its_repository_and_one_about_none_asks_which(atlas_env: dict[str, str]) -> None:
    with org_stack(atlas_env) as up:
        up.model.script(reply_text("The --quiet flag is ignored by the CLI; a known problem."))
        with worker_process(up.org.env, "org-filing-worker"):
            thread = up.ask(CLI, "the --quiet flag is ignored, is that known?", "1700000600.000100")
            _click_file(up, CLI, thread)
            card = copy.deepcopy(
                wait_for(
                    lambda: next(
                        (m for m in up.slack.thread(CLI, thread) if is_card(m) and "instead" not in json.dumps(m)),
                        None,
                    ),
                    timeout=90,
                    what="the draft's card",
                )
            )
            assert "acme/cli" in json.dumps(card["blocks"])  # the card names where it files
            click = block_action(
                APPROVE_ACTION, pending_id(card), user=MAINTAINER, channel=CLI, message_ts=card["ts"], thread_ts=thread
            )
            click["message"] = {"ts": card["ts"], "thread_ts": thread, "blocks": card["blocks"]}
            assert up.send.interaction(click).status == 200
            [filed] = wait_for(lambda: up.org.api.requests("POST", r"/issues$"), timeout=90, what="the filing")
            assert filed.path == "/repos/acme/cli/issues"

            up.model.script(reply_text("Nothing to cite: a general question."))
            general = up.ask(GENERAL, "the --quiet flag is ignored, is that known?", "1700000700.000100")
            _click_file(up, GENERAL, general)
            told = wait_for(
                lambda: [e for e in up.slack.ephemerals() if "serves several" in e.get("text", "")] or None,
                timeout=30,
                what="the clicker asked which repository",
            )
            assert "acme/rocket" in told[0]["text"] and "acme/cli" in told[0]["text"]
        assert len(up.org.api.requests("POST", r"/issues$")) == 1
        assert not any(is_card(m) for m in up.slack.thread(GENERAL, general))
