"""One message, two deliveries in flight at once (a DM as `app_mention` and as `message.im`):
one run and one queued job, at the claim level and through the running bot.

The twins carry different event ids, so only the channel + ts claim key ties them together; the
sequential twin test cannot tell whether it is there (the second delivery finds the run recorded).
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from rq import Queue

from bot import claims
from bot.slack.intake import Intake, NewRun
from tests.standins.slack_events import direct_message, mention
from tests.standins.slack_fixtures import RunningBot, bot, slack_api  # noqa: F401
from workers.runs.job_hash import JobTemplate
from workers.runs.state import Origin
from workers.runs.store import RunStore

TEAM, CHANNEL = "T0TEST", "D0ALICE"


def _twins(ts: str) -> tuple[claims.Claim, claims.Claim]:
    return claims.message_claim(TEAM, CHANNEL, ts, "EvMention"), claims.message_claim(TEAM, CHANNEL, ts, "EvMessage")


def _claim(conn: redis.Redis, c: claims.Claim) -> str:
    return claims.claim(conn, c, run_key="atlas:run:twin", thread_key="atlas:thread:twin").outcome


def test_a_twin_claimed_while_the_first_is_unconfirmed_is_in_flight(redis_conn: redis.Redis) -> None:
    a, b = _twins("1700007000.000001")
    assert _claim(redis_conn, a) == "claimed"
    assert _claim(redis_conn, b) == "in_flight"  # A holds the message, not yet enqueued: Slack retries B later


def test_a_twin_after_the_first_is_confirmed_is_a_duplicate(redis_conn: redis.Redis) -> None:
    a, b = _twins("1700007000.000002")
    assert _claim(redis_conn, a) == "claimed"
    claims.confirm(redis_conn, a)
    assert _claim(redis_conn, b) == "duplicate"


def test_a_twin_after_the_first_released_its_claim_can_claim(redis_conn: redis.Redis) -> None:
    a, b = _twins("1700007000.000003")
    assert _claim(redis_conn, a) == "claimed"
    claims.release(redis_conn, a)
    assert _claim(redis_conn, b) == "claimed"


def test_a_release_by_another_delivery_leaves_the_holders_claim(redis_conn: redis.Redis) -> None:
    """The token is drawn lazily, once per claim: the holder's claim and release agree; a stranger's is refused."""
    holder, stranger = (
        claims.message_claim(TEAM, CHANNEL, "1700007000.000004", "EvA"),
        claims.message_claim(TEAM, CHANNEL, "1700007000.000004", "EvA"),
    )
    assert _claim(redis_conn, holder) == "claimed"
    claims.release(redis_conn, stranger)
    assert _claim(redis_conn, stranger) == "in_flight"
    assert holder.token == holder.token != stranger.token
    claims.release(redis_conn, holder)
    assert _claim(redis_conn, stranger) == "claimed"


def test_the_slack_intake_draws_no_claim_token(redis_conn: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing a token reads os.urandom, which lets go of the GIL on the ack's path; the one-script
    intake confirms directly and never needs one."""
    intake = Intake(redis_conn, JobTemplate.build(redis_conn, "atlas-token"))
    run = NewRun("q", Origin(kind="slack", channel=CHANNEL, thread_ts="1"))

    def no_token() -> uuid.UUID:
        raise AssertionError("a claim token was drawn")

    monkeypatch.setattr(uuid, "uuid4", no_token)
    claim = claims.message_claim(TEAM, CHANNEL, "1700007000.000005", "EvIntake")
    assert intake.take(claim, run, "atlas:thread:token", "abcdefabcdef0001") == "queued"
    assert redis_conn.get(claim.keys[0]) == claims.ENQUEUED.encode()


def test_the_slack_intake_leaves_a_twin_in_flight_to_its_holder_and_drops_a_confirmed_one(
    redis_conn: redis.Redis,
) -> None:
    """One GET per claim key tells the two apart (a pending value is held, the confirmed marker a duplicate)."""
    intake = Intake(redis_conn, JobTemplate.build(redis_conn, "atlas-twins"))
    run = NewRun("q", Origin(kind="slack", channel=CHANNEL, thread_ts="1"))
    a, b = _twins("1700007000.000006")
    assert _claim(redis_conn, a) == "claimed"  # a two-step claim, not yet confirmed, holds the channel + ts key
    assert intake.take(b, run, "atlas:thread:twins", "abcdefabcdef0002") == "in_flight"
    assert redis_conn.get(b.keys[1]) is None and not Queue("atlas-twins", connection=redis_conn).get_job_ids()
    claims.confirm(redis_conn, a)
    assert intake.take(b, run, "atlas:thread:twins", "abcdefabcdef0002") == "duplicate"
    assert not Queue("atlas-twins", connection=redis_conn).get_job_ids()


def test_a_new_mention_is_taken_in_nine_redis_commands(redis_conn: redis.Redis) -> None:
    """Issue 40: Redis commands per run. The script, a SET ... GET per claim key (a GET and a SET each before: 11),
    the run's EXISTS, the thread's turns, the record and RQ's three writes."""
    intake = Intake(redis_conn, JobTemplate.build(redis_conn, "atlas-count"))
    run = NewRun("q", Origin(kind="slack", channel=CHANNEL, thread_ts="1"))
    first = claims.message_claim(TEAM, CHANNEL, "1700007000.000007", "EvCount1")
    assert intake.take(first, run, "atlas:thread:count", "abcdefabcdef0007") == "queued"  # loads the script
    claim = claims.message_claim(TEAM, CHANNEL, "1700007000.000008", "EvCount2")
    before = _commands(redis_conn)
    assert intake.take(claim, run, "atlas:thread:count", "abcdefabcdef0008") == "queued"
    assert _commands(redis_conn) - before - 1 == 9  # less the first INFO
    assert [redis_conn.get(k) for k in claim.keys] == [claims.ENQUEUED.encode()] * 2


def test_a_delivery_in_flight_gives_the_holder_its_pending_claim_back(redis_conn: redis.Redis) -> None:
    intake = Intake(redis_conn, JobTemplate.build(redis_conn, "atlas-giveback"))
    run = NewRun("q", Origin(kind="slack", channel=CHANNEL, thread_ts="1"))
    a, b = _twins("1700007000.000009")
    assert _claim(redis_conn, a) == "claimed"
    held = redis_conn.get(a.keys[0])
    assert intake.take(b, run, "atlas:thread:giveback", "abcdefabcdef0009") == "in_flight"
    assert redis_conn.get(a.keys[0]) == held and 0 < redis_conn.ttl(a.keys[0]) <= claims.PENDING_TTL_SECONDS
    claims.release(redis_conn, a)  # the holder failed to enqueue: Slack's retry of either twin can claim it
    assert redis_conn.get(a.keys[0]) is None
    assert intake.take(b, run, "atlas:thread:giveback", "abcdefabcdef0009") == "queued"


def _commands(conn: redis.Redis) -> int:
    """Commands the server ran so far, those inside scripts included (INFO commandstats)."""
    return sum(int(v["calls"]) for v in conn.info("commandstats").values())


def _queued(conn: redis.Redis) -> list[str]:
    return Queue("atlas", connection=conn).get_job_ids()


def _runs(conn: redis.Redis) -> list[str]:
    return [k.decode() for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def test_twins_in_flight_at_once_through_the_bot_give_one_run_and_one_job(
    bot: RunningBot,
    redis_conn: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    """The first delivery is held just before its intake until the twin has been answered, so the
    two are certainly in flight together. The intake is one atomic script (bot/slack/intake.py): the twin
    takes the message, the held delivery then finds it taken; each is a signed request to the server."""
    import bot.slack.mentions as mentions_module

    real = mentions_module.record_and_enqueue
    twin_answered = threading.Event()
    first = threading.Lock()

    def held(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if first.acquire(blocking=False):  # only the first delivery to get here waits
            twin_answered.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(mentions_module, "record_and_enqueue", held)
    ts = "1700007100.000001"
    as_mention = mention("ORB-1402?", channel=CHANNEL, ts=ts)
    as_message = direct_message("<@UATLAS> ORB-1402?", channel=CHANNEL, ts=ts)
    with ThreadPoolExecutor(2) as pool:
        held_one = pool.submit(bot.send.event, as_mention)
        assert _wait(lambda: first.locked()), "the first delivery never reached its enqueue"
        twin = bot.send.event(as_message).status
        twin_answered.set()
        assert held_one.result(timeout=30).status == 200
    assert len(_runs(redis_conn)) == 1 and len(_queued(redis_conn)) == 1
    assert twin == 200  # no half-taken state for a twin to meet: no Slack retry needed
    assert bot.send.event(as_message, retry_num=1).status == 200  # a retry anyway is a duplicate
    assert len(_queued(redis_conn)) == 1


def test_a_delivery_meeting_a_pending_claim_is_told_to_retry_and_the_retry_is_a_duplicate(
    bot: RunningBot,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    """A claim taken in two steps (a process of the previous version, mid-deploy) and not yet
    confirmed: the intake answers 503 and writes nothing; once it is confirmed, the retry is a duplicate."""
    ts = "1700007150.000001"
    holder = claims.message_claim(TEAM, CHANNEL, ts, "EvElsewhere")
    assert (
        claims.claim(redis_conn, holder, run_key="atlas:run:elsewhere", thread_key="atlas:thread:elsewhere").outcome
        == "claimed"
    )
    event = direct_message("<@UATLAS> ORB-1402?", channel=CHANNEL, ts=ts)
    assert bot.send.event(event).status == 503
    assert _runs(redis_conn) == [] and _queued(redis_conn) == []
    claims.confirm(redis_conn, holder)
    assert bot.send.event(event, retry_num=1).status == 200
    assert _runs(redis_conn) == [] and _queued(redis_conn) == []


def test_many_twin_pairs_sent_at_the_same_moment_give_one_run_and_one_job_each(
    bot: RunningBot,
    redis_conn: redis.Redis,  # noqa: F811
) -> None:
    """No hook: both twins of each message start together (a barrier), retried as Slack would."""
    pairs = 12
    start = threading.Barrier(2 * pairs)

    def deliver(event: dict) -> int:
        start.wait(10)
        status = bot.send.event(event).status
        for retry in (1, 2, 3):  # Slack retries a 503
            if status != 503:
                break
            time.sleep(0.2)  # Slack waits before a retry; the holder confirms meanwhile
            status = bot.send.event(event, retry_num=retry).status
        return status

    events = []
    for n in range(pairs):
        ts = f"1700007200.{n:06d}"
        events += [
            mention(f"twin {n}?", channel=CHANNEL, ts=ts),
            direct_message(f"<@UATLAS> twin {n}?", channel=CHANNEL, ts=ts),
        ]
    with ThreadPoolExecutor(len(events)) as pool:
        statuses = list(pool.map(deliver, events))
    assert statuses == [200] * len(events)
    queued = _queued(redis_conn)
    assert len(_runs(redis_conn)) == pairs and len(queued) == pairs and len(set(queued)) == pairs
    store = RunStore(redis_conn)
    assert sorted(store.load(k.split(":")[-1]).question for k in _runs(redis_conn)) == sorted(
        f"twin {n}?" for n in range(pairs)
    )


def _wait(check, timeout: float = 10.0) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False
