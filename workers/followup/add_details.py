"""Before filing from chat (issue 36 item 7): "Add my details to #N instead". When the draft looks like an open
issue (workers/followup/similar.py), the filing run offers a second action beside "file a new issue": a comment on
the best match that links the thread and carries the draft's details, through its own approval (its own step, so
either is decided alone). Approving one expires the other; the comment runs through the same gate and ledger as
any write, and the thread is then subscribed to #N's close and release notices.
"""

from __future__ import annotations

import json
from typing import Any

from tools.mentions import defuse_arguments
from workers.runs.state import PendingCall, RunState

CALL_ID = "add-details"
STEP = 2
INTRO = (
    "More details of this problem, from a chat thread (Atlas was asked to add them here instead of filing a new issue):"
)
REASON = "Add my details to #{number} instead: it may be the same problem (score {score:.2f}; why: {why})."


def offer(run: RunState, similar: list[dict[str, Any]], body: str, repo: str | None = None) -> PendingCall | None:
    """The comment on the best open match (None when there is none), recorded in the run's items with the reason
    the card shows above it; `repo`: the filing's repository, which the card names (several served)."""
    if not similar:
        return None
    best = similar[0]
    number = int(best["id"])
    named = {"repo": repo} if repo else {}
    comment = {"issue_id": number, "body": f"{INTRO}\n\n{body}", **named}
    arguments = defuse_arguments("post_comment", json.dumps(comment))
    reason = REASON.format(
        number=number, score=float(best.get("score") or 0.0), why=str(best.get("evidence") or "-")[:300]
    )
    run.items += [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": reason}]},
        {"type": "function_call", "call_id": CALL_ID, "name": "post_comment", "arguments": arguments},
    ]
    return PendingCall(
        pending_id=f"{run.id}.{CALL_ID}", call_id=CALL_ID, name="post_comment", arguments=arguments, step=STEP
    )


def issue_of(call: PendingCall) -> int:
    return int(json.loads(call.arguments)["issue_id"])
