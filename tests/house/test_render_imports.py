"""A platform's render modules are pure: they import only the message values (workers/messages/), their own
platform's wording and models, their own view package, the standard library and a few pure text helpers.

Rendering is a function from a value to what the platform shows (Block Kit, Discord components, text): no client,
no Redis, no run, no tracker. So a view is testable without a network, and a third surface costs one view package.
Read with `ast` from the source, function-local and type-only imports included, as the layers are
(tests/house/test_import_graph.py).
"""

from __future__ import annotations

import sys

from tests.house.test_import_graph import imported, matches, modules

# A view package -> the imports it may have besides the shared ones: its platform's models and wording.
VIEWS: dict[str, tuple[str, ...]] = {
    "bot.slack.views.": ("slack_sdk.models", "bot.slack.wording"),
    "bot.discord.views.": ("bot.discord.wording",),  # Discord's payloads are plain JSON: no library's models
    "bot.plain.views.": ("bot.plain.wording",),  # the third surface: text
}
SHARED = ("workers.messages.", "__future__")  # the values, and their sentences
# String in, string out, nothing but the standard library (test_the_text_helpers_are_pure checks it).
TEXT_HELPERS = ("atlas.text", "bot.markdown_split", "bot.disguised_links", "workers.approvals.visible_text")


def _allowed(name: str, package: str) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names:
        return True
    own = (package, *SHARED, *VIEWS[package])
    return any(matches(name, p if p.endswith(".") else p + ".") or name == p for p in own) or name in TEXT_HELPERS


def violations(imports: dict[str, list[tuple[str, int]]]) -> list[str]:
    """`module (line n) imports name` for every import of a view module that is not allowed."""
    found = []
    for module, names in imports.items():
        package = next((p for p in VIEWS if matches(module, p)), None)
        if package is None:
            continue
        found += [f"{module} (line {line}) imports {name}" for name, line in names if not _allowed(name, package)]
    return sorted(found)


def _imports() -> dict[str, list[tuple[str, int]]]:
    found = modules()
    known = set(found)
    return {module: list(imported(module, path, known)) for module, path in found.items()}


def test_render_modules_import_only_the_values_and_their_platform() -> None:
    imports = _imports()
    assert any(matches(m, p) for m in imports for p in VIEWS), "no view module found: has the package moved?"
    assert violations(imports) == []


def test_the_text_helpers_are_pure() -> None:
    imports = _imports()
    impure = [
        f"{helper} imports {name}"
        for helper in TEXT_HELPERS
        for name, _ in imports[helper]
        if name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert impure == []


def test_the_check_sees_a_view_that_reaches_further() -> None:
    planted = {
        "bot.slack.views.answer": [
            ("slack_sdk.models.blocks", 3),
            ("workers.messages.answer", 4),
            ("bot.slack.wording", 5),
            ("bot.slack.views.markup", 6),
            ("json", 7),
            ("slack_sdk.WebClient", 8),
            ("redis", 9),
            ("workers.runs.store", 10),
            ("bot.slack.client", 11),
        ],
        "bot.slack.surface": [("redis", 1)],  # not a view: posting may reach anything the layers allow
    }
    assert violations(planted) == [
        "bot.slack.views.answer (line 10) imports workers.runs.store",
        "bot.slack.views.answer (line 11) imports bot.slack.client",
        "bot.slack.views.answer (line 8) imports slack_sdk.WebClient",
        "bot.slack.views.answer (line 9) imports redis",
    ]
