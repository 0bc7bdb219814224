"""The names a source file defines (functions, classes, methods, constants), found by pattern per language.

Not a parser: a definition line is recognised by the keywords of the usual languages, which is what
"where is X defined?" needs. A block's end is where the indentation returns to the definition's
(or, in brace languages, the line of the closing brace at that indentation); it is capped at MAX_BLOCK lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_BLOCK = 60
_DEFINITIONS = (
    re.compile(r"^(?P<indent>\s*)(?:async\s+)?(?P<kind>def|class)\s+(?P<name>[A-Za-z_]\w*)"),  # Python
    re.compile(
        r"^(?P<indent>\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?(?P<kind>function|class|interface|type|enum)\s+(?P<name>[A-Za-z_$][\w$]*)"
    ),
    re.compile(
        r"^(?P<indent>\s*)(?:export\s+)?(?P<kind>const|let)\s+(?P<name>[A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\(|function)"
    ),
    re.compile(r"^(?P<indent>)(?P<kind>func)\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_]\w*)"),  # Go
    re.compile(
        r"^(?P<indent>\s*)(?:pub(?:\([^)]*\))?\s+)?(?P<kind>fn|struct|enum|trait|impl|mod)\s+(?P<name>[A-Za-z_]\w*)"
    ),  # Rust
    re.compile(r"^(?P<indent>)(?P<kind>const)\s*(?P<name>[A-Z][A-Z0-9_]+)\s*="),
    re.compile(r"^(?P<indent>)(?P<name>[A-Z][A-Z0-9_]{2,})\s*(?::[^=]+)?=(?!=)"),  # a module constant
)


@dataclass(frozen=True)
class Symbol:
    """A defined name, the line it is defined on and the last line of its block (1-based)."""

    name: str
    qualname: str  # Class.method for a method
    kind: str
    line: int
    end: int


def symbols(text: str) -> list[Symbol]:
    """The definitions of one file in line order."""
    lines = text.splitlines()
    found: list[Symbol] = []
    scopes: list[tuple[int, str]] = []  # (indent, name) of the enclosing classes
    for number, line in enumerate(lines, start=1):
        for pattern in _DEFINITIONS:
            match = pattern.match(line)
            if not match:
                continue
            indent = len(match.group("indent").expandtabs())
            scopes = [(i, n) for i, n in scopes if i < indent]
            name, kind = match.group("name"), match.group("kind") if "kind" in match.groupdict() else "constant"
            qualname = ".".join([n for _, n in scopes] + [name])
            found.append(Symbol(name, qualname, kind or "constant", number, _block_end(lines, number, indent)))
            if kind in ("class", "struct", "impl", "trait", "interface"):
                scopes.append((indent, name))
            break
    return found


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The last line of the block that starts on line `start` (1-based)."""
    end = start
    for number in range(start + 1, min(len(lines), start + MAX_BLOCK) + 1):
        line = lines[number - 1]
        if not line.strip():
            continue
        own = len(line) - len(line.lstrip())
        if own <= indent:
            if line.strip()[:1] in ")}]":
                end = number
            break
        end = number
    return end
