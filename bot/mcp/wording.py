"""What the MCP server tells a client in its own words: a proposal's receipt and why a call was refused. The card a
proposal made is shown as the plain-text surface renders it (bot/plain/views/triage.py), below the receipt."""

from __future__ import annotations

PROPOSED = (
    "Proposed: a card for {ref} goes to the maintainers' triage channel (run {run}). Nothing changes on "
    "GitHub unless an approver clicks Approve. The card as it stands:"
)
ALREADY = "Already proposed: the same action on {ref} is on a card already (run {run}). The card as it stands:"
INVALID = (
    "Error: invalid {name} arguments: {where}: {msg}. Hint: give issue_id, action, labels, body, duplicate_of and "
    "reason{repo}; the fields the action does not use are null."
)
INVALID_REPO = ", repo"
UNFIT = "Error: {why}. Hint: label needs labels, comment needs body, close_duplicate needs duplicate_of."
UNREACHABLE = "Error: Atlas could not queue the proposal (its Redis is not reachable). Hint: try again in a minute."
RATE = (
    "Error: this client proposed {rate} actions in the last hour, the most ATLAS_MCP_PROPOSAL_RATE allows. "
    "Hint: try again later; nothing was queued."
)
REPO_FIELD = "The repository the action is on, one of: {repos}. Required: this install serves more than one."
NO_REPO = (
    "Error: say which repository: this install serves more than one. Hint: call again with repo set to one of: {repos}."
)
UNKNOWN_REPO = "Error: {given} is not a repository this install serves. Hint: use one of: {repos}."
REMOVED_REPO = (
    "Error: {given} is no longer served by this install (removed from the GitHub App's installation); nothing was "
    "queued. Hint: use one of: {repos}."
)
REMOVED_READ = (
    "{given} is no longer served by this install (removed from the GitHub App's installation); served: {repos}"
)
