"""What triage cards say, on every platform (Slack mrkdwn and Discord markdown both read `*x*` as emphasis)."""

from __future__ import annotations

CARD_TITLE = "New issue {link}, opened by {author}"
CARD_FALLBACK = "Triage of issue #{number}: {count} suggestion(s) to decide"
DUPLICATE = "Close as duplicate of {link}"
DUPLICATE_EVIDENCE = "Score {score:.2f}. Why: {evidence}"
DUPLICATE_COMMENT = "Atlas comments \"Duplicate of #{original}.\" and closes the issue as a duplicate."
SIMILAR = "Also similar: {links}"
LABELS = "Add labels {labels}"
REPLY = "Post reply"
SIGNED = "Atlas adds: \"Drafted by Atlas, approved by <you> on {platform}.\""
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
SUPERSEDED = "This issue was {why} before anyone clicked: nothing left to decide here."
HIDDEN = "This card shows {count} invisible or direction-changing character(s) as <U+...>: they would be posted as they are."
