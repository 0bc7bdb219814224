"""Discord's 2,000-character limit holds for every message Atlas sends, whatever the titles and bodies
hold: a property over hostile text for each kind of message, and the `/orbit search` reply that once
came out at 2,007 characters, through the endpoint and the stand-in that refuses what Discord refuses."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.discord.cards import decided_payload
from bot.discord.interactions import Interactions
from bot.discord.views.answer import answer_messages
from bot.discord.views.card import card_text
from bot.discord.views.lookup import lookup_payload
from bot.discord.views.progress import progress_text
from bot.lookups import Lookup, Lookups, Result
from bot.web.serve import DISCORD_PATH, http_server
from tests.standins import discord_interactions as di
from tests.standins.discord_api import DiscordAPI
from tests.standins.discord_checks import CONTENT_LIMIT
from tests.standins.discord_fixtures import discord_api, discord_settings  # noqa: F401
from tests.standins.slack_fixtures import BackgroundServer
from tests.support.tools_dataset import ISSUES, make_dataset, write_issues
from workers.approvals.records import Approval
from workers.messages.answer import answer_of
from workers.messages.approval import CardView
from workers.messages.lookup import Found
from workers.messages.progress import Progress, ProgressEnd, Task
from workers.runs.state import Origin, RunState, StepRecord

# What escaping doubles, what reveal widens, fences, mentions, wide characters, line breaks.
HOSTILE = [
    "*",
    "_",
    "~",
    "`",
    "|",
    ">",
    "#",
    "-",
    "[",
    "]",
    "(",
    ")",
    "<",
    ":",
    "\\",
    "```",
    "\n",
    "\n\n",
    " ",
    "\u202e",
    "\u2066",
    "\u200b",
    "<@everyone>",
    "a",
    "é",
    "\U0001f600",
    "word ",
]


def _texts(longest: int) -> st.SearchStrategy[str]:
    """A hostile pattern repeated: long texts come up as often as short ones."""
    return st.tuples(st.lists(st.sampled_from(HOSTILE), max_size=30), st.integers(1, longest)).map(
        lambda t: ("".join(t[0]) * t[1])[:longest]
    )


hostile = _texts(2500)
short_hostile = _texts(250)
PROPERTY = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _fits(*payloads: dict[str, object]) -> None:
    for payload in payloads:
        assert len(str(payload.get("content") or "")) <= CONTENT_LIMIT, len(str(payload.get("content")))


@PROPERTY
@given(
    arg=short_hostile,
    body=hostile,
    state=st.sampled_from([None, "open", "closed"]),
    ok=st.booleans(),
    kind=st.sampled_from(["issue", "search", "docs"]),
)
def test_every_lookup_reply_and_its_shared_copy_fit(
    arg: str, body: str, state: str | None, ok: bool, kind: str
) -> None:
    result = Result(Lookup(kind, arg[:200], state), body, ok)  # type: ignore[arg-type]
    _fits(
        lookup_payload(Found(result, "orbit", shareable=True)),
        lookup_payload(Found(result, "a" * 32, shared_by="1500000000000000001")),
    )


@PROPERTY
@given(
    answer=hostile,
    sources=st.lists(short_hostile, max_size=30),
    status=st.sampled_from(["done", "partial", "failed"]),
    partial=st.booleans(),
)
@example(answer="```" * 334, sources=[], status="done", partial=False)  # one fence line longer than a part
def test_every_answer_part_fits(answer: str, sources: list[str], status: str, partial: bool) -> None:
    run = RunState(
        question="q",
        origin=Origin(kind="discord", channel="1"),
        answer=answer,
        status=status,  # type: ignore[arg-type]
        stop_reason="max_steps",
        partial=partial,
        sources=sources,
        steps=[StepRecord(index=1)],
        error=answer[:300],
    )
    _fits(*answer_messages(answer_of(run, docs_base_url="https://docs.example/{id}", issues_base_url="https://x/{id}")))


@PROPERTY
@given(
    title=hostile,
    body=hostile,
    reason=hostile,
    labels=st.lists(short_hostile, max_size=20),
    asker=short_hostile,
    name=st.sampled_from(["add_labels", "post_comment", "close_issue", "other"]),
    result=hostile,
)
@example(
    title="***\u202e" * 91, body="", reason="", labels=[], asker="*" * 98, name="add_labels", result=""
)  # bidi widened after clipping
def test_every_card_and_its_decided_edit_fit(
    title: str, body: str, reason: str, labels: list[str], asker: str, name: str, result: str
) -> None:
    issue = SimpleNamespace(number=7, title=title, state="open", labels=labels, url="https://x/7")
    arguments = {"issue_id": 7, "labels": labels, "body": body, "reason": "duplicate", "duplicate_of": 3}
    text = card_text(CardView("p", name, arguments, issue, issue, reason, asker, 1.7e9, (title[:80], "#3")))
    _fits({"content": text})
    approval = Approval(
        pending_id="p",
        run_id="r",
        call_id="c",
        name=name,
        arguments="{}",
        step=1,
        status="approved",
        decider="1500000000000000001",
        decided_at=1.7e9,
        card_blocks='{"content": %s}' % _json(text),  # noqa: UP031  # JSON's braces read plainer than doubled
    )
    _fits(decided_payload(approval, result=result, ok=False), decided_payload(approval, in_doubt=True))


@PROPERTY
@given(
    titles=st.lists(hostile, max_size=25), end=st.sampled_from([None, ProgressEnd("done", 3), ProgressEnd("paused")])
)
def test_every_progress_message_fits(titles: list[str], end: ProgressEnd | None) -> None:
    tasks = tuple(Task(str(i), title, "complete") for i, title in enumerate(titles))
    _fits({"content": progress_text(Progress(3, tasks, end))})


def _json(text: str) -> str:
    import json

    return json.dumps(text)


@pytest.fixture
def hostile_endpoint(discord_api: DiscordAPI, redis_url: str, tmp_path: Path) -> Iterator[di.InteractionSender]:  # noqa: F811
    """The endpoint over a dataset whose issues have titles full of Markdown."""
    data = make_dataset(tmp_path / "data")
    extra = [
        {
            "id": 100 + i,
            "title": "failover *_~`|>#-[]()<: " * 8,
            "body": "failover **bold** " * 20,
            "state": "open",
            "labels": ["type:bug"],
        }
        for i in range(20)
    ]
    write_issues(data, [dict(i) for i in ISSUES] + extra)
    shutil.rmtree(tmp_path / "home", ignore_errors=True)
    conf = discord_settings(discord_api, redis_url, tmp_path / "home", data)
    app = Interactions(conf, redis.Redis.from_url(redis_url), Lookups.open(data, conf.home, False))
    server = BackgroundServer(http_server(None, host="127.0.0.1", port=0, discord=app)).start()
    try:
        yield di.InteractionSender(f"http://127.0.0.1:{server.port}{DISCORD_PATH}", discord_api)
    finally:
        server.close()


def test_a_131_character_search_of_markdown_gets_a_reply_discord_accepts(
    hostile_endpoint: di.InteractionSender,
) -> None:
    words = ("failover " + "*_~`|>#-[]" * 20)[:131]
    reply = hostile_endpoint.send(di.lookup("orbit", "search", di.member("1500000000000000001"), words=words))
    assert reply.status == 200 and "Issues matching" in reply.body["data"]["content"]
    assert not hostile_endpoint.problems


def test_the_stand_in_refuses_content_over_2000_characters_as_discord_does_and_the_client_never_sends_it(
    discord_api: DiscordAPI,
    caplog: pytest.LogCaptureFixture,  # noqa: F811
) -> None:
    import json
    import urllib.error
    import urllib.request

    from bot.discord.rest import DiscordREST

    request = urllib.request.Request(
        f"{discord_api.base_url}/channels/1300000000000000001/messages",
        method="POST",
        data=json.dumps({"content": "x" * 2001}).encode(),
        headers={"Authorization": f"Bot {discord_api.token}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    body = json.loads(refused.value.read())
    assert refused.value.code == 400 and body["code"] == 50035
    assert body["errors"]["content"]["_errors"][0]["message"] == "Must be 2000 or fewer in length."
    discord_api.problems.clear()

    DiscordREST(discord_api.token, discord_api.base_url).create_message("1300000000000000001", {"content": "y" * 2500})
    [sent] = discord_api.channel("1300000000000000001")
    assert len(sent["content"]) == 2000 and "clipped" in caplog.text  # the last guard: clipped, logged, delivered
    discord_api.assert_valid()
