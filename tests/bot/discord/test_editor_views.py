"""The Discord views #37's sweep added: a mention's thread name and a triage card's reply editor modal. Pure functions
from a value (workers/messages/status.py, reply_editor.py): no network, no Redis, no run."""

from __future__ import annotations

from bot.discord import wording


def test_a_threads_name_is_the_question_after_atlas_on_one_line_within_discords_limit() -> None:
    from bot.discord.views.thread_title import NAME_CHARS, thread_name
    from workers.messages.status import ThreadTitle

    assert thread_name(ThreadTitle("How do I\n  pin a build?")) == wording.THREAD_NAME.format(
        question="How do I pin a build?"
    )
    long = thread_name(ThreadTitle("word " * 60))
    assert 0 < len(long) <= NAME_CHARS and "\n" not in long
    assert thread_name(ThreadTitle("   ")) == wording.THREAD_NAME.format(question="").strip()


def test_the_reply_editor_is_a_modal_whose_one_field_holds_the_reply() -> None:
    from bot.discord.triage_controls import submitted_text
    from bot.discord.views.triage_controls import MODAL_PREFIX, reply_modal
    from workers.messages.reply_editor import ReplyEditor

    modal = reply_modal(ReplyEditor("p1", "Thanks, fixed in 1.2", 3000))
    assert modal["custom_id"] == MODAL_PREFIX + "p1" and modal["title"] == wording.REPLY_EDITOR_TITLE
    [[field]] = [row["components"] for row in modal["components"]]
    assert field["label"] == wording.REPLY_EDITOR_LABEL and field["value"] == "Thanks, fixed in 1.2"
    assert field["max_length"] == 3000 and field["required"] is True
    assert submitted_text({"components": modal["components"]}) == "Thanks, fixed in 1.2"  # what a submit sends back
