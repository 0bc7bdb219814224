"""Direction controls made visible: text from a model or an issue can't disguise itself on a card.

Unicode's bidirectional controls (U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates,
U+200E/U+200F marks, U+061C the Arabic letter mark) reorder how text is displayed without being
seen: "Fixed in \u202egnp.exe" shows as "Fixed in exe.png". Where a person decides on text (an
approval card), each one is shown as its code point, `<U+202E>`, so what they read is what runs.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def reveal_bidi(text: str) -> str:
    """Each bidirectional control character replaced by a visible `<U+XXXX>`; all else unchanged."""
    return _BIDI.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def has_bidi(text: str) -> bool:
    return _BIDI.search(text) is not None
