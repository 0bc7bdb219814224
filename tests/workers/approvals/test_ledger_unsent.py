"""The ledger's unsent claims (issue 35 item A), on the real Redis: a claim that never reached its tracker's send is
taken over by the next attempt; of two live attempts only the one owning the claim may send; once sent, a claim
without an output is in doubt as before."""

from __future__ import annotations

import redis

from workers.approvals import ledger


def test_an_unsent_claim_is_taken_over_and_only_its_owner_may_send(redis_conn: redis.Redis) -> None:
    first = ledger.claim(redis_conn, "r1", "c1", sent=False)  # then its worker dies waiting for the write turn
    assert isinstance(first, ledger.Claimed) and not first.resumed
    second = ledger.claim(redis_conn, "r1", "c1", sent=False)
    assert isinstance(second, ledger.Claimed) and second.resumed and second.token != first.token
    assert not ledger.mark_sent(redis_conn, "r1", "c1", first.token)  # the first, alive after all, sends nothing
    assert ledger.mark_sent(redis_conn, "r1", "c1", second.token)
    assert ledger.mark_sent(redis_conn, "r1", "c1", second.token)  # again (a retried request): still its own
    assert isinstance(ledger.claim(redis_conn, "r1", "c1", sent=False), ledger.InDoubt)  # sent, never recorded
    ledger.record(redis_conn, "r1", "c1", "Labelled #4.", True)
    assert ledger.claim(redis_conn, "r1", "c1") == ledger.AlreadyDone("Labelled #4.", True)


def test_a_claim_for_a_tracker_that_does_not_guard_its_sends_is_in_doubt_at_once(redis_conn: redis.Redis) -> None:
    """The demo tracker writes without telling the ledger: its claim counts as sent, as every claim did before."""
    assert isinstance(ledger.claim(redis_conn, "r2", "c1"), ledger.Claimed)
    assert isinstance(ledger.claim(redis_conn, "r2", "c1"), ledger.InDoubt)
