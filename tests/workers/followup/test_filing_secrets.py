""" "File as GitHub issue" from a thread where someone pasted tokens and a second person wrote something
confidential (issue 35 item 3): the tokens (GitHub, Slack, OpenAI, AWS shapes) never reach the card, the
model or the public issue, the card says how many were redacted; only the asker's messages are quoted,
and the card names the person whose words were left out. Both the thread's-words draft and the model's.

The GitHub and Slack stand-ins behind the real Bolt app, the OpenAI stand-in through the real openai client,
the filing run's jobs run in this process as a worker would run them (tests/workers/followup/test_model_draft.py)."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.secret_shapes import redact
from atlas.settings import Settings
from bot.slack import wording
from tests.standins.responses_api import ScriptedModel, reply_text
from tests.standins.slack_api import TEAM
from tests.support.approvals_harness import is_card
from tests.support.triage_inbox_harness import Inbox, inbox
from tests.workers.followup.test_model_draft import DRAFTED, HELP, _approve, _body_shown, _shown, _thread
from workers.followup import filing_claim
from workers.jobs import runs as jobs
from workers.process import runtime
from workers.runs.state import Origin, RunState, Turn
from workers.runs.store import RunStore

ASKER, OTHER = "U0ASKER", "U0OTHER"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
FINE_GRAINED = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
SLACK_BOT, SLACK_USER = (
    "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
    "xoxp-" + "2234567890-1987654321-abcdef",
)
OPENAI = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
SECRETS = (GITHUB, FINE_GRAINED, SLACK_BOT, SLACK_USER, OPENAI, AWS)
CONFIDENTIAL = "confidential: our customer Globex loses 40k a day to this, do not share"
FIRST = f"<@U0ATLAS> The scheduler crashes on startup on rocket 2.3 with GITHUB_TOKEN={GITHUB} and {FINE_GRAINED}"
LATEST = (
    f"<@U0ATLAS> still failing; my env has SLACK_BOT_TOKEN={SLACK_BOT} {SLACK_USER} OPENAI_API_KEY={OPENAI} AWS={AWS}"
)


def _filed_card(box: Inbox, ts: str) -> tuple[RunState, dict[str, object]]:
    """A thread the asker and a second person wrote in, answered; a click's filing run and its card."""
    source = RunState(
        id=f"answer-{ts.replace('.', '')}",
        question=LATEST,
        status="done",
        answer=f"Your token {GITHUB} should not be shared; the crash is a config from before 2.3.",
        origin=Origin(kind="slack", team=TEAM, channel=HELP, thread_ts=ts, message_ts=ts, user=ASKER),
        history=[
            Turn(question=FIRST, answer="Which version?", asker=ASKER),
            Turn(question=f"<@U0ATLAS> {CONFIDENTIAL}", answer="Noted.", asker=OTHER),
        ],
    )
    RunStore(box.conn).save(source)
    run_id, started = filing_claim.start(box.conn, box.settings.queue_name, source, ASKER)
    assert started
    jobs.continue_run(run_id)
    card = next((m for m in _thread(box, ts) if is_card(m)), None)
    assert card is not None, "no card in the thread"
    return box.run(run_id), card


def _clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, secret
    assert "Globex" not in text and "confidential" not in text


def test_the_threads_words_draft_redacts_every_secret_quotes_only_the_asker_and_says_both_on_the_card(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="") as box:
        try:
            runtime.install(runtime.build(Settings.from_env(box.env)))
            ts = "1700018000.000100"
            run, card = _filed_card(box, ts)
            shown, body = _shown(card), _body_shown(card)
            _clean(shown)
            assert "[redacted GitHub token]" in body and "[redacted AWS access key]" in body
            assert "The scheduler crashes on startup" in body and "still failing" in body  # the asker's words stay
            assert wording.APPROVAL_REDACTED.format(count=7) in shown  # six in the asker's words, one in the answer
            assert wording.APPROVAL_LEFT_OUT.format(who=f"<@{OTHER}>") in shown
            assert run.filing is not None and run.filing.redacted == 7 and run.filing.left_out == [OTHER]
            _approve(box, run, card, ts)
            [post] = box.github.requests("POST", r"/issues$")
            _clean(json.dumps(post.body))
        finally:
            runtime.install(None)  # type: ignore[arg-type]


def test_the_models_draft_never_sees_a_secret_or_another_persons_words_and_what_it_repeats_is_redacted(
    tmp_path: Path, redis_url: str, scripted_model: ScriptedModel
) -> None:
    echoed = {**DRAFTED, "what_happened": f"Crashes at startup; the logs showed {OPENAI} and {AWS}."}
    scripted_model.script(reply_text(json.dumps(echoed)))
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_CHANNEL="", **scripted_model.env()) as box:
        try:
            runtime.install(runtime.build(Settings.from_env(box.env)))
            ts = "1700018100.000100"
            run, card = _filed_card(box, ts)
            [sent] = scripted_model.bodies()
            _clean(json.dumps(sent))
            said = json.loads(sent["input"][0]["content"].split("\n", 1)[1])["thread"]
            assert [m["from"] for m in said] == [
                "asker",
                "atlas",
                "asker",
                "atlas",
            ]  # the other person's turn is not there
            assert run.filing is not None and run.filing.drafted_by == "model"
            shown = _shown(card)
            _clean(shown)
            assert wording.APPROVAL_REDACTED.format(count=9) in shown  # seven from the thread, two the model repeated
            assert wording.APPROVAL_LEFT_OUT.format(who=f"<@{OTHER}>") in shown
            _approve(box, run, card, ts)
            [post] = box.github.requests("POST", r"/issues$")
            _clean(json.dumps(post.body))
        finally:
            runtime.install(None)  # type: ignore[arg-type]


def test_each_documented_shape_is_redacted_and_ordinary_text_is_left_as_written() -> None:
    for secret in SECRETS + ("gho_" + "x" * 36, "ghs_" + "Y" * 36, "sk-" + "z" * 48, "ASIA" + "ABCDEFGHIJKLMNOP"):
        text, count = redact(f"token: {secret}.")
        assert secret not in text and count == 1, secret
    ordinary = "ask-me-anything sk-learn task_id=ghp xoxo AKIAs are keys; github_pat is a prefix; risk-free"
    assert redact(ordinary) == (ordinary, 0)
