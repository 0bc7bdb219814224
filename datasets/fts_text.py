"""Text as the issues' FTS index sees it: one tokenizer for the builder (tracker_db) and every
in-place update (the tracker journal, the GitHub index), which must delete rows with the very text
they were indexed with.

'-', '.' and '_' are token characters of the index (tracker_db.TOKENIZER); `index_text` hands it
words only ("twice." indexes as "twice") and adds each compound's parts.
"""

from __future__ import annotations

import re

WORD = re.compile(r"\w+(?:[-.]\w+)*")
PART = re.compile(r"[^\W_]+")


def index_text(text: str) -> str:
    """Text as the FTS index sees it: its words, each compound (a-b, a.b, a_b) followed by its parts."""
    out: list[str] = []
    for word in WORD.findall(text):
        out.append(word)
        if "-" in word or "." in word or "_" in word:
            out.extend(PART.findall(word))
    return " ".join(out)
