"""What triage cards say, on every platform (Slack mrkdwn and Discord markdown both read `*x*` as emphasis)."""

from __future__ import annotations

from typing import Any

from atlas.errors import AtlasError
from atlas.text import clip
from tools.tracker import Tracker
from workers.runs.triage_record import TriageAction, TriageRecord

CARD_TITLE = "New issue {link}, opened by {author}"
PROPOSED = "Proposed over MCP by {who}{on}, not by Atlas's triage. Their reason: {reason}"
PROPOSED_ON = " for {repo}"  # the repository the action is on (not the Orbit demo's, which has no owner)
CARD_FALLBACK = "Triage of issue #{number}: {count} suggestion(s) to decide"
DUPLICATE = "Close as duplicate of {link}"
DUPLICATE_EVIDENCE = "Score {score:.2f}. Why: {evidence}"
DUPLICATE_COMMENT = (
    'Atlas comments "Duplicate of #{original}." (with how to have it reopened) and closes the issue as a duplicate.'
)
CHAIN_VIA = "#{first} was itself closed as a duplicate: this points at the end of its chain ({path})."
CHAIN_COMPLETED = (
    "#{original} was closed as completed: it may already be fixed there (see #{original} and its linked changes)."
)
CHAIN_FIXED = "#{original} was closed as completed: it was fixed by pull request #{pull}{release}."
FIXED_RELEASE = " ({tag} includes it)"
FIXED_RELEASE_AFTER = " ({tag}, the first release after it was merged, should include it)"
FIXED_UNRELEASED = " (no release includes it yet)"
CHAIN_NOT_PLANNED = (
    "#{original} was closed as not planned: the problem is known and will not be worked on as it stands."
)
REOPEN_HINT = (
    "If your report is not the same problem, reply here saying what differs and a maintainer will reopen it "
    "(or reopen it yourself, if GitHub lets you)."
)
SIMILAR = "Also similar: {links}"
RELATED = "Related, no action: {links}"  # below the claim threshold (issue 36 item 1)
RELATED_ONE = "{link} ({score:.2f}: {evidence})"
LABELS = "Add labels {labels}"
REPLY = "Post reply"
MODE = "Mode: {mode}."
BACKTEST = "Last backtest: {figures}."
BACKTEST_LABEL = "{label} precision {precision:.2f} over {support}"
NO_BACKTEST = "No backtest figures for these labels yet (`atlas triage backtest`)."
BACKTEST_DUPLICATES = "Last backtest: recall@3 {recall:.2f} over {support} duplicates, {false:.1%} false duplicates."
NO_BACKTEST_DUPLICATES = "No backtest figures for duplicates yet (`atlas triage backtest`)."
SIGNED = 'Atlas adds: "Drafted by Atlas, approved by <you> on {platform}."'
APPROVE = "Approve"
REJECT = "Reject"
OUTCOME = {
    "done": "Approved by {who}: done.",
    "failed": "Approved by {who}, but it did not go through: {result}",
    "in_doubt": "Approved by {who}; it may or may not have happened: check the issue.",
    "denied": "Rejected by {who}.",
    "expired": "Expired: nobody decided in time.",
    "superseded": "Not needed any more.",
    "auto": "Applied without a click (earned in the backtest).",
}
UNDO = "Undo"
UNDO_OFFER = "Undo what Atlas did: {what}."
UNDO_WHEN = (
    "Offered for 7 days after Atlas acted. Atlas comments to say so, signed with who clicked; an Undo counts "
    "as a false claim in `atlas triage report`."
)
UNDO_REOPEN = "reopen the issue"
UNDO_LABELS = "remove {labels}"
UNDO_OUTCOME = {
    "done": "Undone by {who}.",
    "failed": "Undo by {who} did not fully go through: {result}",
    "in_doubt": "Undo by {who} may or may not have happened: check the issue.",
    "expired": "Undo is no longer offered: 7 days have passed.",
    "superseded": "Undo is no longer offered.",
}
UNDO_COMMENT = "A maintainer undid Atlas's triage of this issue: {what}. Sorry for the noise."
UNDO_COMMENT_REOPEN = "it is reopened, since it is not a duplicate of #{original}"
UNDO_COMMENT_LABELS = "the labels {labels} are removed"
SUPERSEDED = "This issue was {why} before anyone clicked: nothing left to decide here."
DIGEST = (
    "{count} more new issue(s) in the last hour were not triaged (over ATLAS_TRIAGE_RATE): {numbers}. "
    "Triage one with `atlas triage {first} --post`."
)
# The thresholds line (issue 36): which thresholds the card's suggestions passed, and from how much history.
THRESHOLDS = "Thresholds from this repository's history: {claims}; labels: {labels}."
THRESHOLDS_CLAIMS = "claims at >= {at:.2f} (at most {false:.0%} false on {non_duplicates} earlier non-duplicates)"
THRESHOLDS_NO_CLAIMS = "no duplicate claims yet ({found} originals found in the history, {needed} needed)"
THRESHOLDS_LABELS = "{each} (right >= {target:.0%}{versions} on {labelled} earlier labelled issues)"
THRESHOLDS_VERSIONS = ", versions {target:.0%}"
THRESHOLDS_NO_LABELS = "none proven yet on {labelled} earlier labelled issues"
THRESHOLDS_UNPROVEN = "; {count} not suggested (not enough history)"
THRESHOLDS_SHORT = "Not calibrated yet ({issues} earlier closed issues): claims at >= {at}; labels at >= {label}."
THRESHOLDS_SHORT_NO_LABELS = (
    "Not calibrated yet ({issues} earlier closed issues): claims at >= {at}; no labels until {first} issues are"
    " labelled."
)
THRESHOLDS_FIXED = "Fixed thresholds (no calibration): claims at >= {at}; labels at >= {label}."
UNREADABLE = "#{number} could not be read: {why}. The card shows what triage recorded."
HIDDEN = (
    "This card shows {count} invisible or direction-changing character(s) as <U+...>: they would be posted as they are."
)


def undo_what(arguments: dict[str, Any], quote: str = "`") -> str:
    """What an Undo takes back, for its card line."""
    parts = [UNDO_REOPEN] if arguments.get("reopen") else []
    labels = [str(n) for n in arguments.get("labels") or []]
    if labels:
        parts.append(UNDO_LABELS.format(labels=", ".join(f"{quote}{n}{quote}" for n in labels)))
    return " and ".join(parts)


def undo_comment(arguments: dict[str, Any]) -> str:
    """The short comment an applied Undo posts on the issue."""
    parts = [UNDO_COMMENT_REOPEN.format(original=arguments.get("duplicate_of"))] if arguments.get("reopen") else []
    labels = [str(n) for n in arguments.get("labels") or []]
    if labels:
        parts.append(UNDO_COMMENT_LABELS.format(labels=", ".join(f"`{n}`" for n in labels)))
    return UNDO_COMMENT.format(what="; ".join(parts))


def outcome(action: TriageAction) -> str | None:
    """The card's line for a decided action (the Undo's own words for it), None when there is none."""
    table = UNDO_OUTCOME if action.kind == "undo" else OUTCOME
    return table.get(action.status)


def chain_lines(original: int, chain: dict[str, Any]) -> list[str]:
    """What the card and the comment say about where a duplicate claim points (workers/new_issues/originals.py)."""
    if chain.get("id") != original:
        return []
    path = [int(n) for n in chain.get("path") or [] if isinstance(n, int)]
    lines = [CHAIN_VIA.format(first=path[0], path=" → ".join(f"#{n}" for n in path))] if len(path) > 1 else []
    fixed = chain.get("fixed")
    if chain.get("state") == "completed" and isinstance(fixed, dict) and isinstance(fixed.get("pull"), int):
        lines.append(CHAIN_FIXED.format(original=original, pull=fixed["pull"], release=_release(fixed)))
    elif chain.get("state") == "completed":
        lines.append(CHAIN_COMPLETED.format(original=original))
    elif chain.get("state") == "not_planned":
        lines.append(CHAIN_NOT_PLANNED.format(original=original))
    return lines


def _release(fixed: dict[str, Any]) -> str:
    """What the chain line says of the fix's release (workers/new_issues/fixed_by.py)."""
    tag = fixed.get("release")
    if not tag:
        return FIXED_UNRELEASED
    return (FIXED_RELEASE if fixed.get("named") else FIXED_RELEASE_AFTER).format(tag=tag)


def duplicate_line(original: int, suggestions: dict[str, Any]) -> str:
    """The card's line under a duplicate claim: what Atlas will comment, and where the chain led."""
    chain = chain_lines(original, suggestions.get("original") or {})
    return " ".join([DUPLICATE_COMMENT.format(original=original), *chain])


def proposed(record: TriageRecord) -> str | None:
    """The card's line naming who proposed its action over MCP and why (None for Atlas's own triage)."""
    if record.proposal is None:
        return None
    on = PROPOSED_ON.format(repo=record.repo) if "/" in record.repo else ""
    return PROPOSED.format(
        who=record.proposal.get("by") or "an MCP client", on=on, reason=record.proposal.get("reason") or "-"
    )


def mode_line(action: TriageAction, suggestions: dict[str, Any]) -> str:
    """An action's mode, and for labels and duplicates the last backtest's figures beside it (issue 25)."""
    line = MODE.format(mode=action.mode)
    if action.kind == "duplicates":
        dup = suggestions.get("backtest_duplicates")
        if not isinstance(dup, dict):
            return f"{line} {NO_BACKTEST_DUPLICATES}"
        return f"{line} " + BACKTEST_DUPLICATES.format(
            recall=float(dup.get("recall@3", 0.0)),
            support=int(dup.get("support", 0)),
            false=float(dup.get("false_rate", 0.0)),
        )
    if action.kind != "labels":
        return line
    figures = suggestions.get("backtest") or {}
    shown = [
        BACKTEST_LABEL.format(
            label=name,
            precision=float(figures[name].get("precision", 0.0)),
            support=int(figures[name].get("support", 0)),
        )
        for name in action.arguments.get("labels") or []
        if name in figures
    ]
    return f"{line} " + (BACKTEST.format(figures="; ".join(shown)) if shown else NO_BACKTEST)


def original(number: int, suggestions: dict[str, Any], tracker: Tracker | None) -> tuple[str, str | None, str]:
    """The duplicate's original as the card names it (title, link, a note when it could not be read): from the tracker
    in the worker, else as recorded at triage time (the bot re-renders a card after a choice without a tracker). A
    lookup that fails (a 403, a 5xx, a timeout, a transfer) never breaks the card: it shows what was recorded, and
    says why."""
    stored = suggestions.get("original") or {}
    recorded = (str(stored.get("title") or ""), stored.get("url")) if stored.get("id") == number else ("", None)
    try:
        ref = tracker.issue(number) if tracker is not None else None
    except AtlasError as exc:  # TrackerError (403, 301, refused) or TrackerUnavailable (5xx, timeout)
        return recorded[0], recorded[1], UNREADABLE.format(number=number, why=clip(str(exc).split("\n")[0], 200))
    if ref is not None:
        return ref.title, ref.url, ""
    return recorded[0], recorded[1], ""


def thresholds_line(shown: dict[str, Any] | None) -> str | None:
    """The card's thresholds line from `Suggestions.thresholds` (thresholds.Thresholds.shown): "claims at >= X (3%
    false on N earlier issues); labels: ...". None when the suggestions carry none (the model answered)."""
    if not shown:
        return None
    support = shown.get("support") or {}
    at = shown.get("duplicate")
    claim_at = f"{at:.2f}" if isinstance(at, float) else "-"
    if not shown.get("calibrated"):
        if not support:
            return THRESHOLDS_FIXED.format(at=claim_at, label=f"{float(shown.get('labels') or 0):.2f}")
        issues = int(support.get("non_duplicates", 0)) + int(support.get("duplicates", 0))
        if isinstance(shown.get("labels"), dict):  # too few labelled issues to suggest any label
            first = (shown.get("targets") or {}).get("first_labelled", "-")
            return THRESHOLDS_SHORT_NO_LABELS.format(issues=issues, at=claim_at, first=first)
        return THRESHOLDS_SHORT.format(issues=issues, at=claim_at, label=f"{float(shown.get('labels') or 0):.2f}")
    targets = shown.get("targets") or {}
    claims = (
        THRESHOLDS_CLAIMS.format(
            at=at, false=float(targets.get("false_claims", 0.0)), non_duplicates=int(support.get("non_duplicates", 0))
        )
        if isinstance(at, float)
        else THRESHOLDS_NO_CLAIMS.format(found=int(support.get("duplicates", 0)), needed=targets.get("duplicates", "-"))
    )
    labels = shown.get("labels")
    labels = labels if isinstance(labels, dict) else {}
    labelled = int(support.get("labelled", 0))
    each = ", ".join(f"{key} >= {value:.2f}" for key, value in labels.items())
    said = (
        THRESHOLDS_LABELS.format(
            each=each,
            target=float(targets.get("label", 0.0)),
            versions=THRESHOLDS_VERSIONS.format(target=float(targets["version"])) if "version" in labels else "",
            labelled=labelled,
        )
        if each
        else THRESHOLDS_NO_LABELS.format(labelled=labelled)
    )
    unproven = shown.get("not_enough_history") or []
    said += THRESHOLDS_UNPROVEN.format(count=len(unproven)) if unproven else ""
    return THRESHOLDS.format(claims=claims, labels=said)
