"""A platform posts only what a view rendered: outside its `views/` package and its wording module, no module of a
chat platform reads a wording module, nor writes out words of its own where a message, modal or status carries text.

So every sentence a user reads comes from a value (workers/messages/) through a pure view (tests/house/
test_render_imports.py), where tests/bot/*/test_views.py check it, and the twin-sentence rule
(tests/house/test_twin_sentences.py) sees all of it. Read with `ast` from the source, function-local and type-only
imports included, as the layers are (tests/house/test_import_graph.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.house.test_import_graph import imported, matches, modules

PLATFORMS = ("bot.slack.", "bot.discord.", "bot.plain.")
WORDING = (
    "bot.slack.wording",
    "bot.discord.wording",
    "bot.plain.wording",
    "workers.messages.wording",
    "workers.wording",
)
# The keys and keyword arguments under which Slack's and Discord's payloads carry what a person reads (`name`
# and `value` are left out: they are ids as often as words).
TEXT_FIELDS = {"text", "content", "title", "label", "placeholder", "status", "loading_messages", "description"}
# module -> why it may write words of its own. Not a message: what the platform is told about a command.
OWN_WORDS: dict[str, str] = {
    "bot.discord.commands": "the slash commands' definitions registered with Discord (PUT commands), as Slack's "
    "are in its app manifest: what the command picker lists, not a message Atlas sends",
}


def _posting(module: str) -> bool:
    """A platform's module that is neither a view nor a wording module: it receives, decides and posts."""
    home = next((p for p in PLATFORMS if matches(module, p)), None)
    return home is not None and not matches(module, home + "views.") and module not in WORDING


def wording_reads(imports: dict[str, list[tuple[str, int]]]) -> list[str]:
    """`module (line n) imports name` for every posting module that reads a wording module."""
    return sorted(
        f"{module} (line {line}) imports {name}"
        for module, names in imports.items()
        if _posting(module)
        for name, line in names
        if any(name == w or name.startswith(w + ".") for w in WORDING)
    )


def _words(node: ast.expr, constants: dict[str, str]) -> bool:
    """Whether `node` is words written out here: a non-empty string literal, an f-string, or a module constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and any(c.isalpha() for c in str(v.value)) for v in node.values)
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.List | ast.Tuple):
        return any(_words(e, constants) for e in node.elts)
    return False


def own_words(source: str) -> list[int]:
    """Lines where text a person reads is written out in place: a text field of a payload (a dict key or a keyword
    argument in TEXT_FIELDS) given a literal or a module-level string constant."""
    tree = ast.parse(source)
    constants = {
        target.id: str(node.value.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in TEXT_FIELDS and _words(value, constants):
                    found.add(value.lineno)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg in TEXT_FIELDS and _words(keyword.value, constants):
                    found.add(keyword.value.lineno)
    return sorted(found)


def _posting_modules() -> dict[str, Path]:
    return {module: path for module, path in modules().items() if _posting(module)}


def test_no_posting_module_reads_a_wording_module() -> None:
    found = modules()
    known = set(found)
    imports = {module: list(imported(module, path, known)) for module, path in found.items()}
    assert any(_posting(m) for m in imports), "no platform module found: has the package moved?"
    assert wording_reads(imports) == []


def test_no_view_writes_words_of_its_own() -> None:
    """A view takes its words from its wording module, where the twin-sentence rule reads them."""
    views = {
        module: path for module, path in modules().items() if any(matches(module, p + "views.") for p in PLATFORMS)
    }
    assert views, "no view module found: has the package moved?"
    assert {module: lines for module, path in views.items() if (lines := own_words(path.read_text()))} == {}


def test_no_posting_module_writes_words_of_its_own() -> None:
    posting = _posting_modules()
    assert set(OWN_WORDS) <= set(posting), "an allowed module is gone: drop it from OWN_WORDS"
    found = {
        module: lines
        for module, path in posting.items()
        if module not in OWN_WORDS and (lines := own_words(path.read_text()))
    }
    assert found == {}
    assert all(own_words(posting[m].read_text()) for m in OWN_WORDS), "an allowed module writes none now: drop it"


def test_the_checks_see_a_planted_violation() -> None:
    planted = {
        "bot.slack.mentions": [("bot.slack.wording", 3), ("bot.slack.views.status", 4)],
        "bot.discord.interactions": [("bot.discord.wording.UNKNOWN_COMMAND", 9), ("workers.messages.wording", 10)],
        "bot.slack.views.status": [("bot.slack.wording", 2)],  # a view: its words are its job
        "bot.discord.wording": [("workers.messages.wording", 11)],  # the wording module itself
        "bot.console.app": [("workers.wording", 1)],  # not a chat platform
    }
    assert wording_reads(planted) == [
        "bot.discord.interactions (line 10) imports workers.messages.wording",
        "bot.discord.interactions (line 9) imports bot.discord.wording.UNKNOWN_COMMAND",
        "bot.slack.mentions (line 3) imports bot.slack.wording",
    ]
    source = (
        'TITLE = "Edit the reply"\n'
        "ID = 'atlas_reply'\n"
        "def modal(body):\n"
        '    return {"title": {"type": "plain_text", "text": TITLE}, "block_id": ID,\n'
        '            "label": f"Reply {body}", "value": body}\n'
        "def post(client, text):\n"
        '    client.chat_postMessage(channel="C1", text=text)\n'
        '    client.assistant_threads_setStatus(status="is thinking...", loading_messages=["Reading..."])\n'
        '    client.assistant_threads_setStatus(status="")\n'
    )
    assert own_words(source) == [4, 5, 8]
