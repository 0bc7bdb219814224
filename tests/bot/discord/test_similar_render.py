"""A "File as GitHub issue" card on Discord shows the open issues that may be the same (issue 36 item 7), as on
Slack: linked, with score and why; their untrusted titles and evidence are escaped (no ping, no masked link) and
counted for the hidden-character warning."""

from __future__ import annotations

from bot.discord import wording
from bot.discord.views.card import card_text
from workers.messages.approval import CardView, shown_text


def test_similar_open_issues_are_listed_escaped_on_the_discord_card() -> None:
    similar = (
        {
            "id": 1,
            "title": "Crash <@&123> [docs](https://evil.example)",
            "url": "https://github.com/acme/rocket/issues/1",
            "score": 0.81,
            "evidence": "KeyError 'retry_policy' \u202e",
        },
    )
    card = CardView(
        "run.file-issue",
        "create_issue",
        {"title": "Scheduler crash", "body": "...", "labels": []},
        None,
        None,
        "",
        "U1",
        0.0,
        (),
        "thread",
        similar=similar,
    )
    text = card_text(card)
    assert wording.APPROVAL_SIMILAR in text
    line = next(line for line in text.splitlines() if "score 0.81" in line)
    assert line.startswith("[\\#1 Crash") and "(<https://github.com/acme/rocket/issues/1>)" in line
    assert "<@&123>" not in line and "[docs](https://evil.example)" not in line  # escaped: no ping, no masked link
    assert "U+202E" in line and "\u202e" in shown_text(card)  # shown, and counted by the warning
    assert wording.APPROVAL_SIMILAR not in card_text(CardView("r.c", "create_issue", {}, None, None, "", None, 0.0))
