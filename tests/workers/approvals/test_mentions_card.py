"""The model's own `post_comment` pings nobody, and its card says so: the comment it wrote names `@alice` and
`@acme/core`; the card shows them as inline code, exactly as the tracker then records the comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.standins.responses_api import Call, reply_calls, reply_text
from tests.support.approvals_harness import MAINTAINER, stack
from tests.tools.github.test_mentions_github import live_mentions

COMMENT = "Thanks @alice; the @acme/core team owns the scheduler (ops@acme.io). Already inert: `@bob`."
POSTED = "Thanks `@alice`; the `@acme/core` team owns the scheduler (ops@acme.io). Already inert: `@bob`."


def _preformatted(card: dict[str, Any]) -> str:
    return "".join(
        e.get("text", "")
        for b in card["blocks"]
        if b["type"] == "rich_text"
        for el in b["elements"]
        if el["type"] == "rich_text_preformatted"
        for e in el["elements"]
    )


def test_the_card_shows_the_comment_as_posted_with_no_live_mention(tmp_path: Path, redis_url: str) -> None:
    with stack(tmp_path, redis_url) as s:
        s.model.script(
            reply_calls(
                [Call("post_comment", {"issue_id": 3, "body": COMMENT}, "call_comment")], text="Thanking them."
            ),
            reply_text("Commented on #3."),
        )
        thread = s.ask("please thank alice on #3")
        with s.worker("w1"):
            (card,) = s.cards(thread)
            assert _preformatted(card) == POSTED and live_mentions(POSTED) == []
            run = s.run_of(card)
            assert s.click(card, MAINTAINER) == 200
            final = s.wait_final(run.id)
        assert final.status == "done"
        [entry] = s.journal()
        assert entry.kind == "comment" and entry.data["body"] == POSTED  # exactly what the card showed
