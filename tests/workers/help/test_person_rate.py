"""One person cannot spend a help channel's hour, and a limit that holds an answer back is said once (issue 35
item 6): the scripts on the test Redis. Per person and channel ATLAS_HELP_PERSON_RATE, per channel ATLAS_HELP_RATE;
the first message a limit holds back in an hour says which ("held_person", "held_channel": its note is due),
later ones of that person in that channel are "limited" (no second note); a redelivery is counted once."""

from __future__ import annotations

import redis

from workers.help import threads

C = "C0HELP"


def _post(conn: redis.Redis, who: str, n: int, now: float, *, limit: int = 3, person: int = 2) -> str:
    return threads.open_thread(
        conn,
        threads.slack_thread("T1", C, f"{who}.{n}"),
        asker=who,
        channel=C,
        post=f"{who}.{n}",
        run_id=f"r-{who}-{n}",
        limit=limit,
        person_limit=person,
        now=now,
    )


def test_one_person_is_held_back_after_their_share_others_go_on_and_each_hears_it_once(redis_conn: redis.Redis) -> None:
    assert [_post(redis_conn, "U1", n, 1000.0 + n) for n in range(4)] == ["new", "new", "held_person", "limited"]
    assert _post(redis_conn, "U1", 1, 1010.0) == "known"  # a redelivery of an admitted post
    assert _post(redis_conn, "U2", 0, 1011.0) == "new"  # the channel's third: it is full now
    assert [_post(redis_conn, "U2", n, 1012.0 + n) for n in (1, 2)] == ["held_channel", "limited"]
    assert _post(redis_conn, "U3", 0, 1020.0) == "held_channel"  # another person hears it once too
    assert (
        _post(redis_conn, "U1", 9, 1000.0 + 3601) == "new"
    )  # an hour later: their share again, and a note again if held


def test_a_reply_counts_against_its_author_too(redis_conn: redis.Redis) -> None:
    thread = threads.slack_thread("T1", C, "U1.0")
    assert _post(redis_conn, "U1", 0, 1000.0) == "new"
    said = [
        threads.follow(
            redis_conn,
            thread,
            user="U1",
            channel=C,
            message=f"m{n}",
            message_json=f'"{n}"',
            run_id=f"f{n}",
            limit=10,
            person_limit=2,
            now=1001.0 + n,
        )
        for n in range(3)
    ]
    assert said[0] in ("follow", "joined") and said[1:] == ["held_person", "limited"]
