"""The Slack views #37's sweep added: the assistant thread's status line and title, and a triage card's reply editor
modal. Pure functions from a value (workers/messages/status.py, reply_editor.py): no network, no Redis, no run."""

from __future__ import annotations

from bot.slack import wording


def test_the_status_line_says_what_the_run_does_and_the_title_is_the_question_clipped() -> None:
    from bot.slack.views.status import TITLE_CHARS, status_args, thread_title
    from workers.messages.status import Idle, Thinking, ThreadTitle, UsingTool, Waiting

    assert status_args(Waiting()) == {"status": wording.WORKING_STATUS, "loading_messages": wording.LOADING_MESSAGES}
    assert status_args(Thinking()) == {"status": wording.ASSISTANT_STATUS_THINKING}
    assert status_args(UsingTool("search_issues")) == {"status": wording.ASSISTANT_STATUS["search_issues"]}
    assert status_args(UsingTool("no_such_tool")) == {"status": wording.ASSISTANT_STATUS_OTHER}
    assert status_args(Idle()) == {"status": ""}
    assert thread_title(ThreadTitle("  How do I\n  pin   a build? ")) == "How do I pin a build?"
    long = thread_title(ThreadTitle("word " * 40))
    assert len(long) == TITLE_CHARS and long.endswith("…") and "\n" not in long


def test_the_reply_editor_is_a_modal_prefilled_with_the_reply_and_where_the_card_is() -> None:
    import json

    from bot.slack.views.reply_editor import REPLY_BLOCK, REPLY_CALLBACK, REPLY_INPUT, reply_modal
    from workers.messages.reply_editor import ReplyEditor

    modal = reply_modal(ReplyEditor("p1", "Thanks, *fixed* in 1.2", 3000), "C1", "1700000000.000100")
    assert modal["type"] == "modal" and modal["callback_id"] == REPLY_CALLBACK
    assert modal["title"]["text"] == wording.REPLY_EDITOR_TITLE and modal["submit"]["text"] == wording.REPLY_EDITOR_SAVE
    assert json.loads(modal["private_metadata"]) == {"pending_id": "p1", "channel": "C1", "ts": "1700000000.000100"}
    [block] = modal["blocks"]
    assert block["block_id"] == REPLY_BLOCK and block["label"]["text"] == wording.REPLY_EDITOR_LABEL
    element = block["element"]
    assert element["action_id"] == REPLY_INPUT and element["initial_value"] == "Thanks, *fixed* in 1.2"
    assert element["max_length"] == 3000 and len(modal["title"]["text"]) <= 24  # Slack: a modal title's limit
