"""The triage card as a value: the new issue, each action Atlas drafted (with its controls while undecided), who
decided what, for every platform.

`triage_card_of` reads it off a triage run once (the original's title from the tracker, the choices made so far);
a platform renders it (bot/slack/views/triage.py) and posts it, without reaching back into workers/new_issues.
Every text field is plain and possibly untrusted (titles, authors, bodies, evidence): the renderer escapes it and
reveals invisible characters. The card's sentences are written once, in workers/new_issues/wording.py (`words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from atlas.text import clip
from tools.tracker import Tracker
from workers.approvals.visible_text import hidden_count
from workers.new_issues import choices
from workers.new_issues import wording as words
from workers.runs.state import RunState
from workers.runs.triage_record import TriageAction, TriageRecord

__all__ = [
    "Duplicate",
    "Labels",
    "Outcome",
    "Related",
    "Reply",
    "TriageCard",
    "TriageItem",
    "Undo",
    "triage_card_now",
    "triage_card_of",
    "words",
]

RESULT_CHARS = 300  # of a decided action's result, on its outcome line
RELATED_SHOWN = 3


@dataclass(frozen=True)
class Duplicate:
    """Close as a duplicate of `original`: its title and link, why it was matched, the next candidates."""

    original: int
    title: str
    url: str | None
    unread: str  # why the original could not be read ("" when it was)
    evidence: str | None  # "Score 0.93. Why: ...", the first candidate's, when there is one
    also: tuple[int, ...]  # the other candidates
    line: str  # what Atlas will comment, and where the duplicate chain led


@dataclass(frozen=True)
class Related:
    """An earlier issue below the claim threshold (issue 36 item 1): a link with its score and evidence, no action."""

    issue: int
    url: str | None
    score: float
    evidence: str


@dataclass(frozen=True)
class Labels:
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Reply:
    body: str  # all of it, exactly as it will be posted (renderers show it preformatted)


@dataclass(frozen=True)
class Undo:
    what: str  # what the Undo takes back, label names in backticks


@dataclass(frozen=True)
class Outcome:
    """A decided action's line in parts: Atlas's words (with `{who}` and `{result}` slots) and the untrusted who and
    result, for a renderer whose escaping would show Atlas's own punctuation escaped (Discord's Markdown)."""

    words: str
    who: str
    result: str


@dataclass(frozen=True)
class TriageItem:
    """One action on the card, as chosen so far; `pending_id` while it can still be decided (its buttons)."""

    kind: str  # "duplicates", "labels", "reply" or "undo"
    shows: Duplicate | Labels | Reply | Undo
    mode: str  # its mode and backtest figures ("" for an Undo)
    pending_id: str | None
    offered: tuple[str, ...] = ()  # labels: the ones offered (checkboxes)
    chosen: tuple[str, ...] = ()  # labels: the ones ticked so far
    editable: bool = False  # a reply short enough for the Edit button
    outcome: str | None = None  # once decided: who decided what, and the result
    outcome_parts: Outcome | None = None  # the same line, unformatted


@dataclass(frozen=True)
class TriageCard:
    """The whole card as it stands."""

    run_id: str
    issue: int
    title: str
    author: str
    url: str | None
    drafts: int  # how many actions wait for a decision (the notification text)
    proposed: str | None  # who proposed the action over MCP and why (None for Atlas's own triage)
    items: tuple[TriageItem, ...]
    superseded: str | None  # what happened to the issue before anyone clicked
    hidden: int  # invisible or direction-changing characters in what the card shows
    thresholds: str | None = None  # the thresholds line (issue 36), shown when present
    related: tuple[Related, ...] = ()  # below the claim threshold: links with evidence, no action (issue 36 item 1)


def triage_card_of(
    run: RunState, tracker: Tracker | None, current: dict[str, dict[str, Any]] | None = None
) -> TriageCard | None:
    """The card of a triage run (None for any other run); `current`: the pending calls' arguments as chosen so far
    (call id -> arguments, workers/new_issues/choices.py `current`)."""
    record = run.triage
    if record is None:
        return None
    shown = [record.title, record.author or ""]
    proposed = words.proposed(record)
    if proposed:
        shown.append(proposed)
    items = tuple(
        _item(action, chosen, pid, record, tracker, shown)
        for action, chosen, pid in choices.shown(run, record, current or {})
    )
    related = _related(record, items)
    shown += [r.evidence for r in related]
    return TriageCard(
        run_id=run.id,
        issue=record.issue,
        title=record.title,
        author=record.author or "?",
        url=record.url,
        drafts=sum(a.mode == "draft" for a in record.actions),
        proposed=proposed,
        items=items,
        superseded=record.superseded or None,
        hidden=hidden_count("\n".join(shown)),
        thresholds=record.thresholds,  # which thresholds decided, from how much history (issue 36)
        related=related,
    )


def triage_card_now(conn: redis.Redis, run: RunState, tracker: Tracker | None) -> TriageCard | None:
    """The card of a triage run with the choices made on it so far (read from its pending approvals)."""
    return triage_card_of(run, tracker, choices.current(conn, run))


def _item(
    action: TriageAction,
    chosen: TriageAction,
    pid: str | None,
    record: TriageRecord,
    tracker: Tracker | None,
    shown: list[str],
) -> TriageItem:
    line = words.outcome(action) if pid is None else None
    parts = Outcome(line, action.decider or "?", clip(action.result, RESULT_CHARS)) if line is not None else None
    outcome = line.format(who=parts.who, result=parts.result) if line is not None and parts is not None else None
    if action.kind == "undo":
        return TriageItem(
            "undo", Undo(words.undo_what(action.arguments)), "", pid, outcome=outcome, outcome_parts=parts
        )
    mode = words.mode_line(action, record.suggestions)
    args = chosen.arguments
    if action.kind == "duplicates":
        return TriageItem(
            "duplicates", _duplicate(args, record, tracker, shown), mode, pid, outcome=outcome, outcome_parts=parts
        )
    if action.kind == "labels":
        names = tuple(str(x) for x in args.get("labels") or [])
        shown.extend(names)
        offered = tuple(str(x) for x in action.arguments.get("labels") or [])
        return TriageItem(
            "labels", Labels(names), mode, pid, offered=offered, chosen=names, outcome=outcome, outcome_parts=parts
        )
    body = str(args.get("body") or "")
    shown.append(body)
    editable = action.tool == "post_comment" and len(body) <= choices.REPLY_MAX_CHARS
    return TriageItem("reply", Reply(body), mode, pid, editable=editable, outcome=outcome, outcome_parts=parts)


def _duplicate(args: dict[str, Any], record: TriageRecord, tracker: Tracker | None, shown: list[str]) -> Duplicate:
    original = int(args["duplicate_of"])
    title, url, unread = words.original(original, record.suggestions, tracker)
    shown.append(title)
    dups = record.suggestions.get("duplicates") or []
    evidence = None
    if dups:
        said = str(dups[0].get("evidence") or "")
        shown.append(said)
        evidence = words.DUPLICATE_EVIDENCE.format(score=float(dups[0].get("score") or 0), evidence=said)
    return Duplicate(
        original=original,
        title=title,
        url=url,
        unread=unread,
        evidence=evidence,
        also=tuple(int(d["id"]) for d in dups[1:]),
        line=words.duplicate_line(original, record.suggestions),
    )


def _related(record: TriageRecord, items: tuple[TriageItem, ...]) -> tuple[Related, ...]:
    """The related issues the triage recorded, less any the card already proposes closing into (up to three)."""
    claimed = {i.shows.original for i in items if isinstance(i.shows, Duplicate)}
    out = []
    for found in record.suggestions.get("related") or []:
        number = int(found.get("id") or 0)
        if number and number not in claimed:
            url = found.get("url")
            evidence = str(found.get("evidence") or "")
            out.append(Related(number, url if isinstance(url, str) else None, float(found.get("score") or 0), evidence))
    return tuple(out[:RELATED_SHOWN])
