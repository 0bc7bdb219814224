"""What the clicker of "File as GitHub issue" or "Mark as answer" is told, through the real Bolt app: the value the
click's handler decided on, rendered by its Slack view (bot/slack/views/filing.py, bot/slack/views/knowledge.py)."""

from __future__ import annotations

from pathlib import Path

from bot.slack.views.answer import FILE_ISSUE_ACTION, MARK_ANSWER_ACTION
from bot.slack.views.filing import filing_click_text
from bot.slack.views.knowledge import solved_click_text
from tests.standins.slack_interactions import block_action
from tests.support.approvals_harness import CHANNEL, MAINTAINER, stack
from tests.support.processes import wait_for
from workers.messages.filing import FilingClick
from workers.messages.knowledge import SolvedClick


def test_a_click_on_an_answer_atlas_no_longer_knows_is_told_so_in_the_views_words(
    tmp_path: Path, redis_url: str
) -> None:
    told = {filing_click_text(FilingClick("nothing")), solved_click_text(SolvedClick("nothing"))}
    assert len(told) == 2
    with stack(tmp_path, redis_url) as s:
        for action in (FILE_ISSUE_ACTION, MARK_ANSWER_ACTION):
            payload = block_action(action, "no-such-run", user=MAINTAINER, channel=CHANNEL)
            assert s.bot.send.interaction(payload).status == 200
        wait_for(lambda: {n["text"] for n in s.api.ephemerals()} >= told, what="both notes")
        assert all(n["user"] == MAINTAINER for n in s.api.ephemerals())
