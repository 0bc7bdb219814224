"""The approval card as a value: what it shows about one pending call (`CardView`), and how it was decided (`Decision`).

The call's arguments, the issues it names (looked up in the tracker), the model's stated reason, the
untrusted text the run read before proposing it, and who asked, gathered the same way for every platform. Slack's
blocks (bot/slack/views/approval.py) and Discord's message (bot/discord/views/card.py) are rendered from it; it lives
in the core, so neither platform imports the other (tests/house/test_platform_peers.py).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from atlas.text import text_of
from tools.errors import TrackerError, TrackerUnavailable
from tools.repo_scope import scope_args
from tools.tracker import IssueRef as IssueRef  # what a card names an issue by (its renderers use it)
from tools.tracker import Tracker
from workers import wording
from workers.runs.state import PendingCall, RunState

log = logging.getLogger("atlas.approval_cards")


@dataclass(frozen=True)
class CardView:
    """Everything a card shows about one pending call."""

    pending_id: str
    name: str
    arguments: dict[str, Any]
    issue: IssueRef | None
    duplicate: IssueRef | None
    reason: str
    asker: str | None
    expires_at: float
    read: tuple[str, ...] = ()  # untrusted text the run read before proposing this: "#237", search results
    drafted: str = ""  # a "File as GitHub issue" draft: "model", "thread" or "fallback" (FilingRecord.drafted)
    redacted: int = 0  # that draft's secrets replaced by a marker
    left_out: tuple[str, ...] = ()  # who else wrote in its thread: not quoted
    similar: tuple[dict[str, Any], ...] = ()  # a draft's open issues that may be the same (FilingRecord.similar)
    repo: str | None = None  # the repository the call changes, when the install serves several (issue 38)


@dataclass(frozen=True)
class Decision:
    """A decided card's last lines: who decided what and when (`status` as on the approval record: approved, denied,
    expired), and the result of running it, if any; `in_doubt`: it may or may not have happened."""

    status: str
    decider: str | None
    decided_at: float
    result: str | None = None
    ok: bool = True
    in_doubt: bool = False


def view(run: RunState, call: PendingCall, tracker: Tracker | None, expires_at: float) -> CardView:
    """Look up what the card needs; a tracker that fails only leaves the issue title out."""
    try:
        arguments = json.loads(call.arguments or "{}")
    except ValueError:
        arguments = {}
    arguments = arguments if isinstance(arguments, dict) else {}
    issue = duplicate = None
    repo = scope_args(arguments)
    if repo and tracker is not None:  # several repositories: the issue is looked up in its own (issue 38)
        tracker = tracker.for_repo(repo)
    if tracker is not None:
        try:
            if isinstance(arguments.get("issue_id"), int):
                issue = tracker.issue(arguments["issue_id"])
            if isinstance(arguments.get("duplicate_of"), int):
                duplicate = tracker.issue(arguments["duplicate_of"])
        except (TrackerUnavailable, TrackerError) as exc:  # a 5xx, a 403, a transfer: the card shows the number only
            log.warning("run %s: could not read an issue while rendering a card: %s", run.id, exc)
    filing = run.filing
    return CardView(
        call.pending_id,
        call.name,
        arguments,
        issue,
        duplicate,
        stated_reason(run, call.call_id),
        run.origin.user,
        expires_at,
        untrusted_reads(run, call.call_id),
        (filing.drafted if filing else None) or "",
        filing.redacted if filing else 0,
        tuple(filing.left_out) if filing else (),
        tuple(filing.similar) if filing else (),
        repo,
    )


def untrusted_reads(run: RunState, call_id: str) -> tuple[str, ...]:
    """Issue text the run read before this call (issues opened, then search results), in reading order."""
    read: list[str] = []
    for item in run.items:
        if item.get("type") != "function_call":
            continue
        if item.get("call_id") == call_id:
            break
        if item.get("name") == "get_issue":
            try:
                number = json.loads(item.get("arguments") or "{}").get("issue_id")
            except (ValueError, AttributeError):
                continue
            label = f"#{number}" if isinstance(number, int) and not isinstance(number, bool) else None
        else:
            label = wording.APPROVAL_PROVENANCE_SEARCH if item.get("name") == "search_issues" else None
        if label and label not in read:
            read.append(label)
    return tuple(read)


def stated_reason(run: RunState, call_id: str) -> str:
    """The assistant text the model wrote in the same reply, before this call (empty if none)."""
    index = next(
        (
            i
            for i, item in enumerate(run.items)
            if item.get("type") == "function_call" and item.get("call_id") == call_id
        ),
        None,
    )
    if index is None:
        return ""
    texts: list[str] = []
    for item in reversed(run.items[:index]):
        kind = item.get("type")
        if kind in ("function_call", "reasoning"):
            continue
        if kind == "message" and item.get("role") == "assistant":
            texts.append(text_of(item.get("content"), sep=""))
            continue
        break
    return "\n".join(t for t in reversed(texts) if t).strip()


def shown_text(card: CardView) -> str:
    """All the untrusted text a card shows (arguments, the model's reason, issue titles and labels): what
    the hidden-character warning counts, on every platform."""
    issues = [i for i in (card.issue, card.duplicate) if i is not None]
    parts = [
        *_strings(card.arguments),
        card.reason,
        card.name,
        *(i.title for i in issues),
        *(label for i in issues for label in i.labels),
        *(str(s.get(k) or "") for s in card.similar for k in ("title", "evidence")),
    ]
    return "\n".join(parts)


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys included (json.dumps would escape control characters)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
