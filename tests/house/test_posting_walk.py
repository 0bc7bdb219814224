"""The walk of an answer from the job to `chat.postMessage` goes down only (#37): the reporter
(bot/slack/surface.py) composes the value, renders it and hands it to the posting modules below, which post
and return. None of them imports the reporter, and none is handed a callable to call back up: a retry through
an outage is the reporter's own loop (bot/slack/delivery.py only decides whether another try is due).

The answer's own posting modules render nothing either: the reporter renders the answer once
(bot/slack/views/answer.py `slack_answer`) and the stop and hand-off notes, and hands down what Slack is sent, so
from the views they take only the rendered types.

A clock or a sleep (`Callable[[], float]`, `Callable[[float], None]`) is time, not a way back up: tests set it.
Read with `ast` from the source, as the layers are (tests/house/test_import_graph.py).
"""

from __future__ import annotations

import ast

from tests.house.test_import_graph import imported, modules

REPORTER = "bot.slack.surface"
# What posts a run's answer, cards and notes once the reporter has handed them down.
WALK = (
    "bot.slack.thread_answer",
    "bot.slack.answer",
    "bot.slack.stream",
    "bot.slack.delivery",
    "bot.slack.progress",
    "bot.slack.cards",
    "bot.slack.triage_card",
)
ANSWER_POSTING = ("bot.slack.thread_answer", "bot.slack.answer", "bot.slack.stream", "bot.slack.delivery")
TIME = ("Callable[[], float]", "Callable[[float], None]")


def callable_parameters(source: str) -> list[str]:
    """`function(parameter: annotation)` for every parameter typed as a callable that is not a clock or a sleep."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is None or arg.annotation is None:
                continue
            annotation = ast.unparse(arg.annotation)
            if "Callable" in annotation and annotation not in TIME:
                found.append(f"{node.name}({arg.arg}: {annotation})")
    return found


def view_calls(source: str) -> list[str]:
    """`module.name` of every import from bot/slack/views that is not a type (a class's CapWords name)."""
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bot.slack.views")
        for alias in node.names
        if not alias.name[:1].isupper() or alias.name.isupper()
    ]


def test_no_posting_module_imports_the_reporter() -> None:
    found = modules()
    known = set(found)
    assert set(WALK) <= known, "a posting module has moved: update WALK"
    climbs = [f"{m} (line {line})" for m in WALK for name, line in imported(m, found[m], known) if name == REPORTER]
    assert climbs == []


def test_no_posting_module_is_handed_a_way_back_up() -> None:
    found = modules()
    handed = {m: callable_parameters(found[m].read_text()) for m in WALK}
    assert {m: names for m, names in handed.items() if names} == {}


def test_the_check_sees_a_callback_but_not_a_clock() -> None:
    planted = (
        "def deliver(run, post: Callable[[], None], *, note: Callable[[str], Any], sleep: Callable[[float], None]):\n"
        "    pass\n"
        "class Progress:\n"
        "    def __init__(self, clock: Callable[[], float] = time.monotonic, later: Optional[Callable] = None): ...\n"
    )
    assert callable_parameters(planted) == [
        "deliver(post: Callable[[], None])",
        "deliver(note: Callable[[str], Any])",
        "__init__(later: Optional[Callable])",
    ]


def test_the_answers_posting_modules_render_nothing() -> None:
    found = modules()
    renders = {m: view_calls(found[m].read_text()) for m in ANSWER_POSTING}
    assert {m: names for m, names in renders.items() if names} == {}


def test_the_check_sees_a_render_call_but_not_a_type() -> None:
    planted = (
        "from bot.slack.views.answer import Message, SlackAnswer, answer_messages, MARKDOWN_LIMIT\n"
        "from bot.slack.progress import channel_of\n"
    )
    assert view_calls(planted) == ["bot.slack.views.answer.answer_messages", "bot.slack.views.answer.MARKDOWN_LIMIT"]
