"""The docs say what the code does: every environment variable Atlas reads is in the configuration
reference (and nothing there is read by no one), every `atlas` command and option appears in the
docs, and every relative link in the Markdown pages reaches a file and heading that exist.

The names come from the code itself, not from a list kept here: `Settings.from_env` is called with a
mapping that records each name it asks for, other modules' `os.environ` reads are found in their
syntax tree, and the commands are read from the argparse parser the `atlas` entry point builds.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest


def _repo() -> Path:
    """The checkout: the nearest folder above this file with a pyproject.toml (tests may move into folders)."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "pyproject.toml").is_file():
            return folder
    raise AssertionError("no pyproject.toml above the tests")


REPO = _repo()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
CONFIG_PAGE = REPO / "docs" / "configuration.md"
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINKED_PAGES = [
    *PAGES,
    *(REPO / name for name in ("ARCHITECTURE.md", "CONTRIBUTING.md", "SECURITY.md", "CHANGELOG.md")),
    REPO / "tests" / "README.md",
]
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _package_files() -> Iterator[Path]:
    """Every Python file of the packages the project ships (pyproject's setuptools `include`)."""
    for pattern in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]:
        top = REPO / pattern.rstrip("*").rstrip(".")
        if top.is_dir():
            yield from sorted(p for p in top.rglob("*.py") if ".venv" not in p.parts)


@functools.cache
def _trees() -> dict[Path, ast.Module]:
    """The packages' files, parsed once for every test here."""
    return {path: ast.parse(path.read_text(), str(path)) for path in _package_files()}


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


class _Recording(Mapping[str, str]):
    """An environment that records every name asked of it and holds only `values`."""

    def __init__(self, values: dict[str, str]) -> None:
        self._held = values
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return self._held[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return self._held.get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.asked.add(key)
        return key in self._held

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)


def _settings_class() -> Any:
    """The class with `from_env`, wherever the floor keeps it."""
    for path, tree in _trees().items():
        for node in tree.body:
            if (
                isinstance(node, ast.ClassDef)
                and node.name == "Settings"
                and any(isinstance(item, ast.FunctionDef) and item.name == "from_env" for item in node.body)
            ):
                return importlib.import_module(_module_of(path)).Settings
    raise AssertionError("no Settings class with from_env in the packages")


@functools.cache
def settings_reads() -> frozenset[str]:
    """Every name Settings.from_env asks for: with nothing set, and with a GitHub repository (whose
    variables are read only then)."""
    settings = _settings_class()
    asked: set[str] = set()
    for values in ({}, {"ATLAS_GITHUB_REPO": "octo/repo", "GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY": "k"}):
        env = _Recording(values)
        settings.from_env(env)
        asked |= env.asked
    return frozenset(asked)


def _is_os_environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def environ_reads() -> dict[str, str]:
    """Names other modules read straight from os.environ (`os.environ.get`, `os.environ[...]`, `os.getenv`),
    with where."""
    found: dict[str, str] = {}
    for path, tree in _trees().items():
        for node in ast.walk(tree):
            name: ast.AST | None = None
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr in ("get", "pop", "setdefault")
                    and _is_os_environ(func.value)
                ):
                    name = node.args[0]
                elif (
                    isinstance(func, ast.Attribute)
                    and func.attr == "getenv"
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "os"
                ):
                    name = node.args[0]
            elif isinstance(node, ast.Subscript) and _is_os_environ(node.value):
                name = node.slice
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                found[name.value] = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
    return found


def documented_variables() -> set[str]:
    """The names in the first column of the configuration page's tables."""
    names: set[str] = set()
    for line in CONFIG_PAGE.read_text().splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            names |= {n for n in re.findall(r"`([^`]+)`", cells[1]) if ENV_NAME.match(n)}
    return names


def test_every_variable_atlas_reads_is_in_the_configuration_reference() -> None:
    read = settings_reads() | set(environ_reads())
    assert "ATLAS_MODEL" in read and "GITHUB_TOKEN" in read, f"the recording saw too little: {sorted(read)}"
    missing = sorted(read - documented_variables())
    assert not missing, f"read by Atlas but not in a table of docs/configuration.md: {missing}"


def test_every_variable_in_the_configuration_reference_is_read() -> None:
    stale = sorted(documented_variables() - settings_reads() - set(environ_reads()))
    assert not stale, f"documented in docs/configuration.md but read by nothing: {stale}"


def _atlas_parser() -> argparse.ArgumentParser:
    """The parser the `atlas` console script builds: its entry point is run until it parses, and stopped there."""
    target = PYPROJECT["project"]["scripts"]["atlas"]
    module, _, function = target.partition(":")
    main = getattr(importlib.import_module(module), function)
    seen: list[argparse.ArgumentParser] = []

    class Parsed(BaseException):  # not an Exception: the entry point may catch those
        pass

    def parse_args(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        seen.append(self)
        raise Parsed

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
        with pytest.raises(Parsed):
            main(["--help"])
    return seen[0]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the atlas parser has no subcommands")


def _docs_text() -> str:
    return "\n".join(p.read_text() for p in PAGES).replace("\\|", "|")


def _documented_forms(text: str, command: str) -> set[str]:
    """The words written after `atlas COMMAND` anywhere in the docs (`start|stop` counts as both)."""
    words: set[str] = set()
    for after in re.findall(rf"atlas {re.escape(command)}\b ?([^`\n]*)", text):
        for token in after.replace("[", " ").replace("]", " ").split():
            words |= set(token.split("|"))
    return words


def test_every_atlas_command_and_action_appears_in_the_docs() -> None:
    text = _docs_text()
    commands = _subcommands(_atlas_parser())
    assert {"ask", "worker", "serve"} <= set(commands)
    problems = []
    for name, sub in commands.items():
        if not re.search(rf"`atlas {re.escape(name)}\b", text):
            problems.append(f"atlas {name}")
            continue
        positional = [a for a in sub._actions if not a.option_strings and a.choices]
        for action in positional[:1]:  # the action word: `atlas redis start`
            missing = set(action.choices or ()) - _documented_forms(text, name)
            problems += [f"atlas {name} {choice}" for choice in sorted(missing)]
    assert not problems, f"not in README.md or docs/*.md: {problems}"


def test_every_option_of_every_command_is_in_the_commands_page() -> None:
    page = (REPO / "docs" / "commands.md").read_text()
    rows = {m.group(1): line for line in page.splitlines() if (m := re.match(r"\| `atlas (\w+)", line))}
    problems = []
    for name, sub in _subcommands(_atlas_parser()).items():
        documented = " ".join(line for key, line in rows.items() if key == name)
        for action in sub._actions:
            for option in action.option_strings:
                if (
                    option.startswith("--")
                    and option != "--help"
                    and not re.search(rf"{re.escape(option)}\b", documented)
                ):
                    problems.append(f"atlas {name} {option}")
    assert not problems, f"not in docs/commands.md's row for the command: {problems}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    anchors: set[str] = set()
    counts: dict[str, int] = {}
    for line in _outside_code(page.read_text()):
        if m := re.match(r"#{1,6} (.+)", line):
            slug = _slug(m.group(1))
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _outside_code(text: str) -> Iterator[str]:
    """The lines of a Markdown page outside fenced code blocks."""
    fence: str | None = None
    for line in text.splitlines():
        marker = re.match(r"\s*(```+|~~~+)", line)
        if marker and (fence is None or marker.group(1).startswith(fence)):
            fence = marker.group(1)[:3] if fence is None else None
            continue
        if fence is None:
            yield line


def broken_links(page: Path) -> list[str]:
    broken = []
    for line in _outside_code(page.read_text()):
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
                broken.append(f"{target} (no such heading)")
    return broken


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_reaches_a_file_and_heading(page: Path) -> None:
    assert page.is_file(), f"{page.relative_to(REPO)} is missing"
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(REPO)}: {broken}"
