"""Suggestions become actions: the exact tool calls a maintainer approves, and what Atlas says on GitHub.

Only labels the issue's own tracker has reach an action (and not those the issue already carries).
The duplicate action is the best candidate only (the others are listed on the card as similar).
Anything posted says it was drafted by Atlas and who approved it; that line is added when the
approved call runs, since the approver is known only then, and the card shows it in advance.
"""

from __future__ import annotations

from typing import Any

from atlas.triage_settings import Action, TriageSettings
from tools.mentions import neutralise
from tools.tracker import IssueRef
from workers.new_issues import wording
from workers.runs.triage_record import CALL_PREFIX, TriageAction
from workers.triage.engine import Suggestions

STEPS: dict[Action, int] = {"duplicates": 1, "labels": 2, "reply": 3}
PLATFORM_NAMES = {"slack": "Slack", "discord": "Discord"}


def signature(approver: str, platform: str) -> str:
    """The line under everything Atlas posts on an issue."""
    return f"_Drafted by Atlas, approved by {approver} on {PLATFORM_NAMES.get(platform, platform)}._"


def duplicate_comment(original: int, approver: str, platform: str, chain: dict[str, Any] | None = None) -> str:
    """GitHub's "Duplicate of #N." first, then where the chain led and how to have the issue reopened."""
    lines = [f"Duplicate of #{original}.", *wording.chain_lines(original, chain or {}), wording.REOPEN_HINT]
    return "\n\n".join([" ".join(lines[:1]), " ".join(lines[1:]), signature(approver, platform)])


def reply_comment(reply: str, approver: str, platform: str) -> str:
    return f"{reply}\n\n{signature(approver, platform)}"


def build(
    found: Suggestions,
    issue: IssueRef | None,
    known_labels: list[str],
    triage: TriageSettings,
    earned_by: Suggestions | None = None,
) -> list[TriageAction]:
    """The actions of one issue's card (and its shadow records), in card order. `earned_by`: the suggestions of
    the engine whose backtest earned `auto` (the offline engine's, when the model answered; default `found`):
    only a label it suggests is applied unasked, and the rest of `found` wait on the card (issue 35: a model's
    suggestion, which issue text can steer, never rides on the offline engine's figures)."""
    actions: list[TriageAction] = []
    number = found.issue

    def add(kind: Action, tool: str, arguments: dict[str, Any], mode: str | None = None) -> None:
        chosen = mode or triage.mode(kind)
        if chosen == "off":
            return
        shadow = chosen == "shadow"
        actions.append(
            TriageAction(
                kind=kind,
                mode="shadow" if shadow else "draft",
                tool=tool,
                arguments=arguments,
                call_id=f"{CALL_PREFIX}{kind}",
                step=STEPS[kind],
                status="shadow" if shadow else "pending",
            )
        )

    if found.duplicates:
        add(
            "duplicates",
            "close_issue",
            {"issue_id": number, "reason": "duplicate", "duplicate_of": found.duplicates[0].id},
        )
    have = set(issue.labels) if issue is not None else set()
    known = set(known_labels)
    names = [s.name for s in found.labels if s.name in known and s.name not in have]
    earned = [s.name for s in (earned_by or found).labels if s.name in known and s.name not in have]
    auto = [n for n in earned if n in triage.auto_labels] if triage.mode("labels") == "auto" else []
    names += [n for n in auto if n not in names]
    if names:
        if auto:
            actions.append(
                TriageAction(
                    kind="labels",
                    mode="auto",
                    tool="add_labels",
                    arguments={"issue_id": number, "labels": auto},
                    call_id=f"{CALL_PREFIX}labels-auto",
                    step=0,
                    status="pending",
                )
            )
        rest = [n for n in names if n not in auto]
        if rest:
            add(
                "labels",
                "add_labels",
                {"issue_id": number, "labels": rest},
                "draft" if triage.mode("labels") == "auto" else None,
            )
    if found.reply:
        add(
            "reply", "post_comment", {"issue_id": number, "body": neutralise(found.reply)}
        )  # the card shows it as posted
    return actions
