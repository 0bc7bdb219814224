"""The model's text on Discord pings nobody and disguises no link (issue 35 item 4): an answer's `<@id>`, `<@&role>`,
`@everyone` and `@here` are shown as text and every message says `allowed_mentions: {"parse": []}` as Discord documents
it; a masked link whose label names another address shows its real host; a triage card's drafted reply is shown in a
code block, where nothing is a link or a mention."""

from __future__ import annotations

import re

from bot.discord.rest import NO_MENTIONS
from bot.discord.triage_card import card_payload
from bot.discord.views.answer import answer_messages
from workers.messages.answer import answer_of
from workers.runs.state import Origin, RunState, StepRecord
from workers.runs.triage_record import TriageAction, TriageRecord

EVIL = "https://evil.example/login"
ANSWER = (
    f"Ask <@1500000000000000001> or <@!1500000000000000002>, ping <@&1500000000000000003>, @everyone and @here; "
    f"see [https://docs.example/retries]({EVIL}) or [the guide](https://docs.example/guide); mail a@here.example."
)


def test_an_answer_shows_mentions_as_text_and_a_masked_links_real_host() -> None:
    run = RunState(
        question="q",
        origin=Origin(kind="discord", channel="1", message_ts="2"),
        answer=ANSWER,
        status="done",
        stop_reason="done",
        steps=[StepRecord(index=1)],
    )
    content = answer_messages(answer_of(run, docs_base_url=None, issues_base_url=None))[0]["content"]
    assert not re.search(r"<@[!&]?\d", content) and not re.search(r"(?<![\w.])@(everyone|here)\b", content), content
    assert "<\u200b@1500000000000000001>" in content and "@\u200beveryone" in content and "a@here.example" in content
    assert f"[https://docs.example/retries (evil.example)]({EVIL})" in content
    assert "[the guide](https://docs.example/guide)" in content
    assert NO_MENTIONS == {"parse": []}  # what the REST client adds to every message body


def test_a_triage_cards_drafted_reply_is_a_code_block_with_no_live_link() -> None:
    body = f"Thanks! Read [https://docs.example/faq]({EVIL}) first. @everyone"
    reply = TriageAction(
        kind="reply",
        mode="draft",
        tool="post_comment",
        arguments={"issue_id": 7, "body": body},
        call_id="triage-reply",
        step=3,
    )
    record = TriageRecord(repo="acme/rocket", issue=7, title="Crash", author="someone", actions=[reply])
    run = RunState(
        id="triage-1",
        question="triage #7",
        origin=Origin(kind="discord", channel="1"),
        triage=record,
        status="awaiting_approval",
    )
    payload = card_payload(run, None)
    [embed] = payload["embeds"]
    assert embed["description"].startswith("```") and embed["description"].rstrip().endswith("```")
    assert body in embed["description"]  # whole and exact: what Approve posts
    assert payload["allowed_mentions"] == {"parse": []}
