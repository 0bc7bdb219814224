"""Word evidence for labels: a few kinds of report that any tracker has (a question, a request, a
docs problem, a crash with a traceback), spotted from the text, and what each meant on this
repository so far: the share of the earlier labelled issues showing that cue that carried a label.

The cues are generic; their meaning is learned as of each issue from the issues before it (a
question-form title meant `type:question` 46 times in 50 on Orbit; on another tracker it may mean
nothing, and then it suggests nothing).
"""

from __future__ import annotations

import re

CUES = {
    "question": re.compile(
        r"\?\s*$|^\W*(how|what|why|is there|is it|can i|can we|should|does|do i|do we|where|which)\b", re.IGNORECASE
    ),
    "request": re.compile(
        r"\b(add|support for|allow|an option|feature request|would be nice|proposal|please add|provide)\b",
        re.IGNORECASE,
    ),
    "docs": re.compile(r"\b(docs?|documentation|typo|readme)\b", re.IGNORECASE),
}
BODY_CUES = {
    "traceback": re.compile(r"Traceback \(most recent call last\)|^\s*\w+(Error|Exception): ", re.MULTILINE),
}


# A template's section heading: "### Describe the bug", "**Expected behavior**", "## Environment" (GitHub's issue
# forms and markdown templates): which template a report was filed with says what kind of report it is.
HEADING = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]+|\*\*)([A-Za-z][^\n#*:]{2,50}?)[ \t]*(?:\*\*)?[ \t]*:?[ \t]*$", re.MULTILINE
)


def sections(body: str) -> frozenset[str]:
    """The section headings of an issue's body, lowercased, as `section:describe the bug`."""
    return frozenset(f"section:{' '.join(m.lower().split())}" for m in HEADING.findall(body))


def cues(title: str, body: str) -> frozenset[str]:
    """The cues an issue shows: the title's kind of report, and a traceback in the body."""
    found = {name for name, pattern in CUES.items() if pattern.search(title)}
    found |= {name for name, pattern in BODY_CUES.items() if pattern.search(body)}
    return frozenset(found)
