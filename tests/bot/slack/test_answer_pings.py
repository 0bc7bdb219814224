"""The model's text in a Slack answer pings nobody and disguises no link (issue 35 item 4): `<@U…>`, `<@W…>`,
`<#C…>`, `<!subteam^…>`, `<!here>`, `<!channel>`, `<!everyone>` are shown as text in the markdown block, the
notification text, the streamed answer and the text-only fallback; a link whose label is another address
(`<https://evil…|https://docs.example/…>`, `[docs.example](https://evil…)`) shows the host it goes to."""

from __future__ import annotations

import re

from bot.disguised_links import honest_label
from bot.slack.views.answer import answer_messages, streamed_markdown
from workers.messages.answer import answer_of
from workers.runs.state import Origin, RunState, StepRecord

PINGS = (
    "<@U0ADMIN>",
    "<@W0ENTERPRISE|boss>",
    "<#C0SECRET>",
    "<!subteam^S0ONCALL>",
    "<!here>",
    "<!channel>",
    "<!everyone>",
)
EVIL = "https://evil.example/login?next=docs"
ANSWER = (
    f"Ask {PINGS[0]} or {PINGS[1]} in {PINGS[2]}, or page {PINGS[3]} {PINGS[4]} {PINGS[5]} {PINGS[6]}.\n\n"
    f"The fix is in <{EVIL}|https://docs.example/retries> and [docs.example/retries]({EVIL}); "
    "see also <https://docs.example/ok|https://docs.example/ok> and <https://docs.example/x|the guide>."
)
LIVE = re.compile(r"<[@#!]")


def _run(answer: str) -> RunState:
    return RunState(
        question="q",
        origin=Origin(kind="slack", channel="C1", thread_ts="1.0", user="U1"),
        status="done",
        answer=answer,
        stop_reason="done",
        steps=[StepRecord(index=1)],
    )


def test_no_user_channel_group_or_broadcast_mention_in_model_text_stays_live_and_disguised_links_show_their_host() -> (
    None
):
    [message] = answer_messages(answer_of(_run(ANSWER), docs_base_url=None, issues_base_url=None))
    markdown = message.blocks[0]["text"]
    streamed = streamed_markdown(answer_of(_run(ANSWER), docs_base_url=None, issues_base_url=None)) or ""
    for shown in (markdown, message.text, streamed):
        assert not LIVE.search(shown), shown
    for ping in PINGS:  # still readable, only not a mention
        assert ping.replace("<", "<\u200b") in markdown
    assert f"<{EVIL}|https://docs.example/retries (evil.example)>" in markdown
    assert f"[docs.example/retries (evil.example)]({EVIL})" in markdown
    assert "<https://docs.example/ok|https://docs.example/ok>" in markdown  # the same host: as written
    assert "<https://docs.example/x|the guide>" in markdown  # a label that is no address: as written


def test_a_label_names_another_host_only_when_it_looks_like_an_address() -> None:
    assert honest_label("https://docs.example/a", "https://docs.example/b") == "https://docs.example/a"
    assert honest_label("www.docs.example", "https://docs.example/b") == "www.docs.example"
    assert (
        honest_label("docs.example", "https://docs.example.evil.example/") == "docs.example (docs.example.evil.example)"
    )
    assert honest_label("HTTPS://Docs.Example/", "https://user@10.0.0.1:8080/x") == "HTTPS://Docs.Example/ (10.0.0.1)"
    assert honest_label("the retries page", EVIL) == "the retries page"
    assert honest_label("v2.3.1", EVIL) == "v2.3.1"
