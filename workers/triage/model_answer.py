"""What the model's triage may say, and what of it is kept.

The model answers in a strict JSON schema (the Responses API's `text.format`), so its reply has the
same shape as the offline engine's (`Suggestions`). Its content is still checked here, because the
model read untrusted issue text on the way: a label the repository does not have, a duplicate that
is not an earlier issue of this tracker (or is the issue itself), a score outside 0..1, or more than
the card shows, never reaches a card; nor does a status or decision label of any scheme (`wontfix`,
`duplicate`, `good first issue`, `status/triage`): the same rule as the offline engine's (labels.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from typing import Any

from workers.triage import labels as label_kinds
from workers.triage.engine import MAX_DUPLICATES, DuplicateSuggestion, LabelSuggestion, Suggestions

MAX_LABELS = 5
MIN_SCORE = 0.5  # what the model itself rates below even odds is not put to a maintainer
EVIDENCE_CHARS = 600
REPLY_CHARS = 3000  # what a card's reply editor takes (workers/new_issues/choices.py)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["duplicates", "labels", "reply"],
    "properties": {
        "duplicates": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "score", "evidence"],
                "properties": {
                    "id": {"type": "integer", "description": "the earlier issue's number"},
                    "score": {"type": "number", "description": "0 to 1: how sure it is the same problem"},
                    "evidence": {"type": "string", "description": "the matching title, error or traceback lines"},
                },
            },
        },
        "labels": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "score"],
                "properties": {
                    "name": {"type": "string", "description": "one of the repository's labels, exactly"},
                    "score": {"type": "number", "description": "0 to 1"},
                },
            },
        },
        "reply": {
            "type": ["string", "null"],
            "description": (
                "a reply for a maintainer to post: the docs section that answers it, or what the report lacks; "
                "else null"
            ),
        },
    },
}
FORMAT: dict[str, Any] = {
    "format": {"type": "json_schema", "name": "triage_suggestions", "strict": True, "schema": SCHEMA}
}


def parse(
    text: str, issue: int, known_labels: Collection[str], is_earlier: Callable[[int], bool]
) -> Suggestions | None:
    """The suggestions the model's answer holds, kept to what may reach a card; None when it is not the schema's
    shape."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not all(k in data for k in ("duplicates", "labels", "reply")):
        return None
    dups: list[DuplicateSuggestion] = []
    for d in data["duplicates"] if isinstance(data["duplicates"], list) else []:
        number, score = _int(d, "id"), _score(d)
        if number is None or score is None or score < MIN_SCORE or number == issue or not is_earlier(number):
            continue
        if all(x.id != number for x in dups):
            dups.append(DuplicateSuggestion(number, score, str(d.get("evidence") or "")[:EVIDENCE_CHARS]))
    labels: list[LabelSuggestion] = []
    known = set(known_labels)
    for x in data["labels"] if isinstance(data["labels"], list) else []:
        name, score = (str(x.get("name") or "") if isinstance(x, dict) else ""), _score(x)
        offered = label_kinds.suggestable(name) or label_kinds.kind(name) == "version"
        if (
            name in known
            and offered
            and score is not None
            and score >= MIN_SCORE
            and all(s.name != name for s in labels)
        ):
            labels.append(LabelSuggestion(name, score, "suggested by the model"))
    reply = data["reply"] if isinstance(data["reply"], str) and data["reply"].strip() else None
    dups.sort(key=lambda d: -d.score)
    labels.sort(key=lambda s: -s.score)
    return Suggestions(issue, dups[:MAX_DUPLICATES], labels[:MAX_LABELS], reply[:REPLY_CHARS] if reply else None)


def _int(item: Any, key: str) -> int | None:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score(item: Any) -> float | None:
    value = item.get("score") if isinstance(item, dict) else None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 <= float(value) <= 1.0:
        return None
    return round(float(value), 3)
