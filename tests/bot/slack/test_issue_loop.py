"""From a thread to an issue, and back, end to end on loopback: a Slack mention answered by a real worker,
"File as GitHub issue" on the answer, the draft's model call refused (400) so the card is drafted from the
thread's own words and says so, an approver's Approve, exactly one
`POST /repos/{owner}/{repo}/issues` on the GitHub stand-in; then signed webhooks: the issue closed
(delivered twice) and a release that mentions it each post once in the original thread, and a thread whose
channel Atlas was removed from gets a log line instead, its subscription dropped. The model may file or link
an issue itself too: its `create_issue` waits on a card like any side effect (a 502 after GitHub filed it is
settled by the issue body's marker), its `link_issue` ("this is #N")
needs none and writes nothing on GitHub, and either way the thread is subscribed when the run ends."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from atlas.cli import show_run
from bot.slack import wording
from bot.slack.views.answer import FILE_ISSUE_ACTION
from bot.slack.views.approval import APPROVE_ACTION
from tests.standins.github_new_issues import release_published
from tests.standins.github_webhooks import deliver, payload
from tests.standins.responses_api import Call, ScriptedModel, reply_calls, reply_error, reply_text
from tests.standins.slack_api import TEAM
from tests.standins.slack_events import mention
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import is_card, outputs_sent, pending_id
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import MAINTAINER, TRACEBACK, Inbox, inbox
from workers.approvals import audit
from workers.followup import subscriptions
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

HELP = "C0HELP"
ASKER = "U0ASKER"


def _thread(box: Inbox, ts: str) -> list[dict[str, Any]]:
    return copy.deepcopy(box.slack.thread(HELP, ts))


def _button(message: dict[str, Any], action_id: str) -> str | None:
    for block in message.get("blocks") or []:
        for element in block.get("elements") or [] if block.get("type") == "actions" else []:
            if element.get("action_id") == action_id:
                return str(element["value"])
    return None


def _click(box: Inbox, message: dict[str, Any], action_id: str, value: str, user: str, thread: str) -> int:
    body = block_action(action_id, value, user=user, channel=HELP, message_ts=message["ts"], thread_ts=thread)
    body["user"]["username"] = user.lower().removeprefix("u0")
    body["message"] = {"ts": message["ts"], "thread_ts": thread, "blocks": message["blocks"]}
    return box.send.interaction(body).status


def _texts(box: Inbox, thread: str, needle: str) -> list[str]:
    return [m.get("text", "") for m in _thread(box, thread) if needle in m.get("text", "")]


def test_a_thread_filed_or_linked_hears_once_of_the_close_and_the_release_and_a_removed_channel_is_logged(
    tmp_path: Path, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with (
        ScriptedModel() as model,
        inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **model.env()) as box,
        box.worker("loop-w1"),
    ):
        model.script(
            reply_text(
                "That KeyError comes from a config written before 2.3: add `retry_policy` to it."
            ),  # answered, no tool
            reply_error(
                400, message="Invalid request (scripted)."
            ),  # the draft's call: refused, the thread's words are drafted
            reply_calls(
                [
                    Call(
                        "create_issue",
                        {"title": "Worker hangs on SIGTERM", "body": "Seen on rocket 2.3.", "labels": ["bug"]},
                        "call_new",
                    )
                ],
                text="Nobody reported this yet; here is a draft.",
            ),
            reply_text("Filed it."),
            reply_calls([Call("link_issue", {"issue_id": 3}, "call_link")]),
            reply_text("This is #3."),
        )
        thread = "1700007000.000100"
        question = f"The scheduler crashes on startup after upgrading to rocket 2.3:\n{TRACEBACK}"
        assert box.send.event(mention(question, channel=HELP, user=ASKER, ts=thread)).status == 200
        answer = wait_for(
            lambda: next((m for m in _thread(box, thread) if _button(m, FILE_ISSUE_ACTION)), None),
            timeout=60,
            what="the answer with its File as GitHub issue button",
        )
        run_id = _button(answer, FILE_ISSUE_ACTION)
        assert run_id
        assert _click(box, answer, FILE_ISSUE_ACTION, run_id, ASKER, thread) == 200
        assert _click(box, answer, FILE_ISSUE_ACTION, run_id, ASKER, thread) == 200  # Slack redelivers / a double click

        card = wait_for(
            lambda: next((m for m in _thread(box, thread) if is_card(m)), None), timeout=60, what="the draft's card"
        )
        shown = json.dumps(card["blocks"])
        assert "KeyError: 'retry_policy'" in shown and "- rocket 2.3" in shown and wording.APPROVAL_NEW_LABELS in shown
        assert wording.APPROVAL_DRAFTED_BY["fallback"] in shown
        assert box.github.requests("POST", r"/issues$") == []  # nothing on GitHub before the click
        assert _click(box, card, APPROVE_ACTION, pending_id(card), MAINTAINER, thread) == 200
        [post] = wait_for(lambda: box.github.requests("POST", r"/issues$"), what="the POST of the issue")
        number = max(box.github.repo.issues)
        assert post.body["title"].startswith("The scheduler crashes on startup") and post.body["labels"] == [
            "bug",
            "scheduler",
        ]
        assert f"https://atlas-test.slack.com/archives/{HELP}/p{thread.replace('.', '')}" in post.body["body"]
        wait_for(lambda: _texts(box, thread, f"Filed #{number}"), what="the thread told of the new issue")
        drafts = [
            m for m in _thread(box, thread) if wording.APPROVAL_TITLE["create_issue"] in json.dumps(m.get("blocks"))
        ]
        assert len(drafts) == 1 and "Approved by" in json.dumps(drafts[0]["blocks"])  # the second click drafted nothing
        assert subscriptions.for_thread(box.conn, subscriptions.place_of(RunStore(box.conn).load(run_id))) == [
            ("acme/rocket", number)
        ]
        assert show_run.show(box.settings, run_id, as_json=False) == 0
        assert f"subscribed to: acme/rocket#{number}" in capsys.readouterr().out

        closed = box.github.repo.edit_issue(number, state="closed", state_reason="completed")
        body = payload("issues-closed", box.github.repo, action="closed", issue=closed, sender={"login": "maria"})
        body["sender"]["login"] = "maria"
        for delivery in ("close-1", "close-1", "close-2"):  # GitHub's redelivery, and the same event twice
            assert deliver(box.webhook_url, "issues", body, delivery=delivery)[0] in (200, 202)
        [told] = wait_for(lambda: _texts(box, thread, "was closed by"), what="the close notice")
        assert told.startswith(f"#{number} ") and "@maria" in told and "as completed" in told

        release = box.github.repo.add_release("v2.3.1", f"Fixes #{number} and #1.")
        assert (
            deliver(box.webhook_url, "release", release_published(box.github.repo, release), delivery="rel-1")[0] == 202
        )
        assert (
            deliver(box.webhook_url, "release", release_published(box.github.repo, release), delivery="rel-1b")[0]
            == 202
        )
        [released] = wait_for(lambda: _texts(box, thread, "release v2.3.1"), what="the release notice")
        assert f"#{number} is mentioned in release v2.3.1" in released

        box.slack.removed.add(HELP)  # Atlas is removed from the channel
        later = box.github.repo.add_release("v2.4.0", f"Also #{number}.")
        assert (
            deliver(box.webhook_url, "release", release_published(box.github.repo, later), delivery="rel-2")[0] == 202
        )
        log = tmp_path / "loop-w1.log"
        wait_for(lambda: "subscription dropped" in log.read_text(), what="the log line of the removed channel")
        assert "no longer in the channel" in log.read_text()
        assert subscriptions.for_issue(box.conn, "acme/rocket", number) == []
        assert len(_texts(box, thread, "was closed by")) == 1 and not _texts(box, thread, "v2.4.0")
        box.slack.removed.clear()

        # The model's own create_issue (a card, then one POST) and link_issue (no card, no write)
        proposed, linked = "1700007100.000100", "1700007200.000100"
        assert (
            box.send.event(mention("please file this: the worker hangs on SIGTERM", channel=HELP, ts=proposed)).status
            == 200
        )
        card = wait_for(
            lambda: next((m for m in _thread(box, proposed) if is_card(m)), None), timeout=60, what="the model's card"
        )
        assert len(box.github.requests("POST", r"/issues$")) == 1
        box.github.apply_then_fail(r"POST /repos/acme/rocket/issues$", 502)  # GitHub files it, then answers 502
        assert _click(box, card, APPROVE_ACTION, pending_id(card), MAINTAINER, proposed) == 200
        assert _final(box, proposed).status == "done"
        assert (
            box.send.event(mention("the scheduler skips jobs after a restart", channel=HELP, ts=linked)).status == 200
        )
        assert _final(box, linked).status == "done"
    second = max(box.github.repo.issues)
    assert (
        len(box.github.requests("POST", r"/issues$")) == 2
        and box.github.repo.issues[second]["title"] == "Worker hangs on SIGTERM"
    )
    assert outputs_sent(model)["call_new"].startswith(
        f"Filed #{second}"
    )  # settled from GitHub by the body's marker, not posted again
    [settled] = [
        e
        for e in audit.entries(box.conn)
        if e.kind == "result" and e.get("tool") == "create_issue" and "call_new" in e.get("pending_id")
    ]
    assert settled.get("decision") == "done" and "found on the tracker" in settled.get("result")
    assert _following(box, proposed) == [("acme/rocket", second)] and _following(box, linked) == [("acme/rocket", 3)]
    assert box.github.requests("PATCH") == []  # linking wrote nothing
    model.assert_done()


def _following(box: Inbox, thread: str) -> list[tuple[str, int]]:
    return subscriptions.for_thread(box.conn, Origin(kind="slack", team=TEAM, channel=HELP, thread_ts=thread))


def _final(box: Inbox, thread: str) -> RunState:
    store = RunStore(box.conn)

    def found() -> RunState | None:
        runs = [
            store.load(k.decode().rsplit(":", 1)[1]) for k in box.conn.scan_iter("atlas:run:*") if k.count(b":") == 2
        ]
        return next(
            (r for r in runs if thread in (r.origin.message_ts, r.origin.thread_ts) and r.final and r.filing is None),
            None,
        )

    return wait_for(found, timeout=60, what=f"the run of {thread} to finish")
