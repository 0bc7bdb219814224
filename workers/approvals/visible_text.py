"""Hidden characters made visible: text from a model or an issue can't disguise itself on a card.

Some characters are drawn as nothing, or reorder what is drawn around them: Unicode's bidirectional
controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates, U+200E/U+200F marks, U+061C)
make "Fixed in \u202egnp.exe" show as "Fixed in exe.png"; zero-width characters (U+200B-U+200D, U+2060,
U+FEFF) and the tag characters (U+E0000-U+E007F, invisible ASCII look-alikes) hide text the approver
never sees but GitHub stores. Every format character (Unicode category Cf, which holds all of these),
every control character but newline and tab, the line and paragraph separators and the blank Hangul
fillers are shown as their code point, `<U+200B>`, so what a person reads before deciding is what runs,
and `hidden_count` says how many there are so the card can flag them.
"""

from __future__ import annotations

import unicodedata

_BLANK_LETTERS = "\u115f\u1160\u3164\uffa0"  # Hangul fillers: letters (Lo) drawn as nothing
_KEPT = "\n\t"


def hidden(char: str) -> bool:
    """Whether `char` is drawn as nothing or changes how the text around it is drawn."""
    if char in _KEPT:
        return False
    return (
        unicodedata.category(char) in ("Cf", "Cc", "Zl", "Zp")
        or char in _BLANK_LETTERS
        or 0xE0000 <= ord(char) <= 0xE007F
    )


def reveal(text: str) -> str:
    """Each hidden character replaced by a visible `<U+XXXX>`; all else unchanged."""
    return "".join(f"<U+{ord(c):04X}>" if hidden(c) else c for c in text)


def hidden_count(text: str) -> int:
    """How many hidden characters `text` holds (what a card's warning counts)."""
    return sum(1 for c in text if hidden(c))
