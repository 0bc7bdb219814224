"""A flood of new issues is capped per repository and told, never silent (issue 35 item 5): with
ATLAS_TRIAGE_RATE=3, eight `issues.opened` start three triage runs (three cards, and with a model three paid
runs at most); the triage channel gets one digest naming the held-back issues and `atlas triage N --post`;
a redelivery of a held-back issue is counted once; the digest scheduled for later names what came after it,
and `atlas triage N --post` (a maintainer asking) is not limited. Proposals over MCP are capped per client.

The real webhook (signed, through the web process), a real RQ worker process, the GitHub and Slack stand-ins."""

from __future__ import annotations

from pathlib import Path

from rq import Queue
from rq.registry import ScheduledJobRegistry

from atlas.settings import Settings
from tests.support.processes import wait_for
from tests.support.triage_inbox_harness import CHANNEL, inbox
from workers.jobs.digest import post_digest
from workers.new_issues import claim, proposals, rates
from workers.new_issues.proposals import Proposal
from workers.process import runtime


def _text(message: dict[str, object]) -> str:
    return str(message.get("text") or "")


def test_eight_new_issues_over_a_rate_of_three_make_three_cards_and_one_digest_naming_the_rest(
    tmp_path: Path, redis_url: str
) -> None:
    with inbox(tmp_path, redis_url, ATLAS_TRIAGE_RATE="3") as box:
        issues = [box.open_issue(f"Worker {n} stalls on shutdown", f"Seen on node {n}.") for n in range(8)]
        box.deliver_opened(issues[6], delivery="again")  # a held-back issue redelivered: counted once
        with box.worker("rate-w1"):
            queue = Queue(box.settings.queue_name, connection=box.conn)
            wait_for(lambda: any("were not triaged" in _text(m) for m in box.messages()), timeout=60, what="the digest")
            wait_for(lambda: not queue.count and not queue.started_job_registry.count, what="the queue drained")
        started = [i["number"] for i in issues if claim.run_of(box.conn, "acme/rocket", i["number"])]
        assert len(started) == 3
        held = [i["number"] for i in issues if i["number"] not in started]
        [first] = [_text(m) for m in box.messages() if "were not triaged" in _text(m)]  # one, at the first held back
        assert len(box.messages()) <= 4  # at most three cards beside it
        # the worker takes the deliveries concurrently: which were held back by the time it posted is not fixed
        named = [n for n in held if f"#{n}," in first or f"#{n}." in first]
        assert named and f"{len(named)} more new issue(s)" in first, first
        assert any(f"atlas triage {n} --post" in first for n in named), first  # the first named, oldest held back

        # the issues held back after it wait for the next digest, scheduled ten minutes on
        assert (
            len([j for j in ScheduledJobRegistry(queue=queue).get_job_ids() if j.startswith("atlas-digest-repo-")]) == 1
        ), ScheduledJobRegistry(queue=queue).get_job_ids()
        late = box.open_issue("Dashboard blank after upgrade", "Nothing renders.")
        with box.worker("rate-w2"):  # the late issue is held back too; the last digest went out just now: none yet
            wait_for(
                lambda: f"#{late['number']}" in " ".join(rates.held_back(box.conn, "repo:acme/rocket")),
                what="the late one held back",
            )
        assert len([m for m in box.messages() if "were not triaged" in _text(m)]) == 1
        box.conn.delete("atlas:triage:digest:repo:acme/rocket")  # ten minutes later (the gate's TTL, not waited for)
        try:
            runtime.install(runtime.build(Settings.from_env(box.env)))
            rest = len(held) - len(named) + 1  # those after the first digest, and the late one
            assert f"digest posted ({rest} held back)" in post_digest("repo:acme/rocket")  # the scheduled job, run here
            assert (
                post_digest("repo:acme/rocket") == "nothing held back since the last digest"
            )  # the gate, then nothing new
        finally:
            runtime.install(None)  # type: ignore[arg-type]
        digests = [_text(m) for m in box.messages() if "were not triaged" in _text(m)]
        assert len(digests) == 2 and f"{rest} more new issue(s) in the last hour" in digests[1], digests
        for number in [*held, late["number"]]:  # each held-back issue named by exactly one digest
            assert sum(f"#{number}," in d + "," or f"#{number}." in d for d in digests) == 1, number
        assert claim.run_of(box.conn, "acme/rocket", late["number"]) is None
        assert claim.start(box.conn, box.settings.queue_name, claim_record(late), origin(), limit=None)[
            1
        ]  # a maintainer asked


def claim_record(issue: dict[str, object]):  # noqa: ANN201 - TriageRecord
    from workers.runs.triage_record import TriageRecord

    return TriageRecord(repo="acme/rocket", issue=int(issue["number"]), title=str(issue["title"]))  # type: ignore[call-overload]


def origin():  # noqa: ANN201 - Origin
    from workers.runs.state import Origin

    return Origin(kind="slack", channel=CHANNEL)


def test_proposals_are_capped_per_client_and_the_client_is_told(redis_conn) -> None:  # noqa: ANN001 - redis.Redis
    triage = Settings.from_env({"ATLAS_TRIAGE_CHANNEL": CHANNEL, "ATLAS_MCP_PROPOSAL_RATE": "2"}).triage
    outcomes = []
    for n in range(5):
        proposal = Proposal(
            issue_id=n + 1, action="label", labels=["bug"], body=None, duplicate_of=None, reason="flood"
        )
        outcomes.append(proposals.propose(redis_conn, "q-rate", "acme/rocket", triage, proposal, "agent-a")[0])
    other = Proposal(issue_id=9, action="label", labels=["bug"], body=None, duplicate_of=None, reason="mine")
    assert [bool(o) for o in outcomes] == [True, True, False, False, False]
    assert proposals.propose(redis_conn, "q-rate", "acme/rocket", triage, other, "agent-b")[
        0
    ]  # another client's own budget
