"""The triage inbox in the chaos bench (issue 35): new issues arrive as signed GitHub webhooks at `atlas serve`
among the mentions, while a worker is SIGKILLed, Slack answers 503 and Redis is down (the webhooks sent then
get a 503, and GitHub does not redeliver: the periodic sync must start their triage). Once every card is up,
each card's labels are approved with a signed click. Is every issue carded once, every approved write sent once?
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from atlas.settings import Settings
from bot.slack.views.approval import APPROVE_ACTION, DENY_ACTION
from tests.standins.github_api import GitHubAPI
from tests.standins.github_webhooks import SECRET as WEBHOOK_SECRET
from tests.standins.github_webhooks import deliver, payload
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SlackSender
from tests.standins.slack_interactions import block_action
from tests.support.github_harness import run_sync
from tests.support.triage_inbox_harness import button, repository, text_of
from workers.new_issues import claim
from workers.runs.store import RunStore

CHANNEL = "C0TRIAGE"
MAINTAINER = "U0MAINT"
TOPICS = (
    "Scheduler skips jobs after a restart",
    "Scheduler drifts by a minute each day",
    "Typo in the install guide",
    "Scheduler cron expression with seconds is rejected",
    "How do I configure the docs theme?",
)


@dataclass
class TriageOutcome:
    issues: int
    refused_webhooks: int = 0  # sent while Redis was down: 503, left to the periodic sync
    carded_once: int = 0
    carded_twice: int = 0
    uncarded: int = 0
    clicks: int = 0  # Approve and Deny clicks sent, a click again included
    refused_clicks: int = 0  # answered other than 200
    approved: int = 0  # even-numbered issues: their labels approved
    written_once: int = 0
    written_twice: int = 0
    unwritten: int = 0
    denied: int = 0  # odd-numbered issues: their labels denied
    denied_written: int = 0  # a denied write that was sent anyway
    quiet: int = 0  # triaged with nothing to decide: Atlas posts no card (workers/new_issues/triage_run.py _show)
    webhook_status: dict[int, int] = field(default_factory=dict)  # each issue's delivery: what serve answered


def env(github: GitHubAPI, home: Path) -> dict[str, str]:
    """What the deployment adds for the inbox; the repository synced first (the workers serve its folder)."""
    extra = {
        **github.env(),
        "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "ATLAS_TRIAGE_CHANNEL": CHANNEL,
        "ATLAS_APPROVERS": MAINTAINER,
        "ATLAS_SYNC_INTERVAL": "5",
        "ATLAS_TRIAGE_ACTIONS": "duplicates=off,labels=draft,reply=off",
    }
    run_sync(github, Settings.from_env({**extra, "ATLAS_HOME": str(home)}), build_index=False)
    return extra


def stand_in() -> GitHubAPI:
    return GitHubAPI(repository())


def open_issue(github: GitHubAPI, url: str, index: int, outcome: TriageOutcome) -> int:
    """A new issue on GitHub and its `issues.opened` delivery; a 503 (Redis down) is counted, not retried."""
    issue = github.repo.add_issue(
        f"{TOPICS[index % len(TOPICS)]} (chaos {index})", "Seen on 2.3 with the defaults.", author=f"user{index}"
    )
    body = payload("issues-opened", github.repo, action="opened", issue=issue)
    body["issue"]["author_association"] = "NONE"  # a user's issue: triaged (a writer's is skipped)
    status, _ = deliver(url, "issues", body)
    outcome.refused_webhooks += status == 503
    outcome.webhook_status[int(issue["number"])] = status
    return int(issue["number"])


def cards(slack: SlackAPI) -> list[dict[str, Any]]:
    return [m for (channel, _), m in list(slack.messages.items()) if channel == CHANNEL and not m.get("thread_ts")]


def nothing_to_card(conn: redis.Redis, repo: str, number: int) -> bool:
    """Triaged with no action to decide (no label proven, duplicates and replies off): its run is done and Atlas
    posts no card, as it should. The bench waited for a card for every issue, and a topic without a label
    (a typo, a docs question) timed it out."""
    run_id = claim.run_of(conn, repo, number)
    try:
        run = RunStore(conn).load(run_id) if run_id else None
    except Exception:  # noqa: BLE001 - no readable run: not known to be quiet
        return False
    record = run.triage if run is not None else None
    return record is not None and run.status == "done" and not any(a.mode != "shadow" for a in record.actions)


def to_card(conn: redis.Redis, repo: str, numbers: list[int]) -> list[int]:
    """The issues whose card the bench waits for: all but those triaged with nothing to decide."""
    return [n for n in numbers if not nothing_to_card(conn, repo, n)]


def all_carded(slack: SlackAPI, numbers: list[int]) -> bool:
    shown = [text_of(c) for c in cards(slack)]
    return all(any(f"#{n} " in s for s in shown) for n in numbers)


class Clicker:
    """The maintainer, during the faults: each card is clicked as it appears, Approve on the labels of an
    even-numbered issue, Deny on an odd one's. A click the deployment did not take (Redis down; a card Slack
    did not let it redraw) leaves the buttons up, and is clicked again `again` seconds later, as a person would."""

    def __init__(self, slack: SlackAPI, send: SlackSender, outcome: TriageOutcome, again: float = 3.0) -> None:
        self.slack, self.send, self.outcome, self.again = slack, send, outcome, again
        self.last: dict[str, float] = {}  # card ts -> when it was last clicked
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="chaos-clicker", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.wait(0.2):
            self.click_pending()

    def click_pending(self) -> int:
        """One pass over the cards; how many still show a labels action."""
        left = 0
        for card in cards(self.slack):
            number = _number(text_of(card))
            action = APPROVE_ACTION if number is not None and number % 2 == 0 else DENY_ACTION
            try:
                pending = button(card, "labels", action)
            except AssertionError:  # decided: the card shows no labels action
                continue
            left += 1
            if time.monotonic() - self.last.get(card["ts"], -self.again) < self.again:
                continue
            self.last[card["ts"]] = time.monotonic()
            body = block_action(action, pending, user=MAINTAINER, channel=CHANNEL, message_ts=card["ts"])
            body["user"]["username"] = "maint"
            body["message"] = {"ts": card["ts"], "blocks": card["blocks"]}
            try:
                status = self.send.interaction(body).status
            except OSError:
                continue
            self.outcome.clicks += 1
            self.outcome.refused_clicks += status != 200
        return left

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


def _number(text: str) -> int | None:
    found = re.search(r"#(\d+) ", text)
    return int(found.group(1)) if found else None


def written(github: GitHubAPI, number: int) -> int:
    return sum(1 for c in github.requests("POST", rf"/issues/{number}/labels$") if c.status == 200)


def count(github: GitHubAPI, slack: SlackAPI, numbers: list[int], carded: list[int], outcome: TriageOutcome) -> None:
    """`carded`: the numbers with something to decide (`to_card`); the others are counted quiet."""
    shown = [text_of(c) for c in cards(slack)]
    outcome.quiet = len(numbers) - len(carded)
    for n in carded:
        carded = sum(f"#{n} " in s for s in shown)
        outcome.carded_once += carded == 1
        outcome.carded_twice += carded > 1
        outcome.uncarded += carded == 0
        sent = written(github, n)
        if n % 2:
            outcome.denied += 1
            outcome.denied_written += sent > 0
            continue
        outcome.approved += 1
        outcome.written_once += sent == 1
        outcome.written_twice += sent > 1
        outcome.unwritten += sent == 0
