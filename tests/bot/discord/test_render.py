"""What a run looks like on Discord: 2,000-character parts on block boundaries, links, escaping, approvers."""

from __future__ import annotations

from bot.discord import wording
from bot.discord.approvers import DiscordPolicy
from bot.discord.views.answer import answer_messages
from bot.discord.views.card import card_text
from bot.discord.views.card_embeds import card_embeds
from bot.discord.views.markup import escape
from tests.standins import discord_interactions as di
from workers.messages.answer import answer_of
from workers.messages.approval import CardView
from workers.runs.state import Origin, RunState, StepRecord


def _run(answer: str, **extra: object) -> RunState:
    fields: dict[str, object] = {"status": "done", "stop_reason": "done", **extra}
    return RunState(
        question="q",
        origin=Origin(kind="discord", channel="1", message_ts="2"),
        answer=answer,
        steps=[StepRecord(index=1)],
        **fields,
    )  # type: ignore[arg-type]


def test_a_long_answer_is_split_under_2000_characters_between_blocks_with_fences_reopened() -> None:
    code = "```python\n" + "\n".join(f"print({i})  # a line of code" for i in range(120)) + "\n```"
    answer = "\n\n".join(["Intro paragraph. " * 40, code, "Closing paragraph. " * 30])
    messages = answer_messages(answer_of(_run(answer), docs_base_url=None, issues_base_url=None))
    assert len(messages) >= 3 and all(len(m["content"]) <= 2000 for m in messages)
    for message in messages:
        assert message["content"].count("```") % 2 == 0  # every part closes the fences it opens
    assert messages[0]["content"].startswith("Intro paragraph.")
    assert "stop: done" in messages[-1]["content"] and "components" in messages[-1]
    assert all("components" not in m for m in messages[:-1])


def test_sources_are_links_where_a_base_url_is_set_and_ids_are_escaped() -> None:
    run = _run("Short answer.", sources=["#12", "retries_and_backoff"])
    [message] = answer_messages(
        answer_of(run, docs_base_url="https://docs.example/{id}", issues_base_url="https://gh.example/issues")
    )
    assert "[\\#12](<https://gh.example/issues/12>)" in message["content"]
    assert "[retries\\_and\\_backoff](<https://docs.example/retries_and_backoff>)" in message["content"]


def test_a_failed_run_says_so_without_feedback_buttons() -> None:
    run = _run("", status="failed", stop_reason="model_unavailable", error="down", partial=True)
    run.answer = "down"
    [message] = answer_messages(answer_of(run, docs_base_url=None, issues_base_url=None))
    assert "couldn't finish" in message["content"] and "components" not in message


def test_untrusted_text_in_cards_cannot_ping_or_format() -> None:
    text = card_text(
        CardView(
            "p",
            "post_comment",
            {"issue_id": 3, "body": "@everyone ``` <@&123> **x**"},
            None,
            None,
            "Because <@999> said *so*",
            "1500000000000000001",
            1_800_000_000,
        )
    )
    (embed,) = card_embeds("post_comment", {"issue_id": 3, "body": "@everyone ``` <@&123> **x**"})  # the comment, whole
    assert "`\u200b``" in embed["description"]  # the comment's own fence cannot close the code block
    assert "\\<@999\\>" in text and "\\*so\\*" in text
    assert "<@1500000000000000001>" in text and "<t:1800000000:f>" in text
    (embed,) = card_embeds("post_comment", {"issue_id": 3, "body": "Fixed in \u202egnp.exe"})
    assert "<U+202E>" in embed["description"] and "\u202e" not in embed["description"]
    assert "\u202e" not in card_text(
        CardView("p", "add_labels", {"issue_id": 3, "labels": ["a\u202eb"]}, None, None, "", None, 0, ("#237",))
    )
    assert escape("<@&1> @here _x_") == "\\<@&1\\> @here \\_x\\_"


def test_approvers_are_the_configured_role_or_users_else_owners_and_managers() -> None:
    role = DiscordPolicy(role="77")
    assert role.may_decide(di.click("x", di.member("1", roles=("77",))))
    assert not role.may_decide(di.click("x", di.member("2", permissions=(1 << 5) | (1 << 3))))
    assert DiscordPolicy(users=frozenset({"3"})).may_decide(di.click("x", di.member("3")))
    default = DiscordPolicy()
    assert default.may_decide(di.click("x", di.member("4", permissions=1 << 5)))  # Manage Server
    assert default.may_decide(di.click("x", di.member("5", permissions=1 << 3)))  # Administrator (owners have all)
    assert not default.may_decide(di.click("x", di.member("6", permissions=(1 << 11) | (1 << 10))))
    assert not default.may_decide({"type": 3, "data": {}})


def test_a_new_issue_card_says_which_made_the_draft_and_no_other_card_does() -> None:
    new = {"title": "Scheduler crashes", "body": "### What happened\n\nIt crashes.", "labels": ["bug"]}
    by_model = card_text(CardView("p", "create_issue", new, None, None, "", "1", 0, (), "model"))
    assert by_model.index(wording.APPROVAL_DRAFTED_BY["model"]) < by_model.index(
        "Scheduler crashes"
    )  # before what it describes
    assert wording.APPROVAL_DRAFTED_BY["fallback"] in card_text(
        CardView("p", "create_issue", new, None, None, "", "1", 0, (), "fallback")
    )
    assert not any(
        line in card_text(CardView("p", "create_issue", new, None, None, "", "1", 0))
        for line in wording.APPROVAL_DRAFTED_BY.values()
    )
