"""The console's read model (issue 30): a run is filed as it pauses or ends, by time and by each filter;
counted once per day however often it is saved; a finished record keeps each result's start for its page;
votes move it between the feedback filters."""

from __future__ import annotations

import redis

from workers.console_data import index_filing, run_index, votes
from workers.runs.state import AnsweredBy, Origin, RunState, StepRecord, Usage
from workers.runs.store import PREVIEW_CHARS, RunStore, preview_of


def _run(status: str, answer: str = "They back off.") -> RunState:
    run = RunState(
        question="How do retries back off?",
        status=status,  # type: ignore[arg-type]
        origin=Origin(kind="slack", channel="C1", user="U1", thread_ts="1.2", team="T1"),
    )
    run.items = [
        {"type": "function_call", "call_id": "call_1", "name": "get_issue", "arguments": '{"issue_id": 3}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "issue 3 " * 200},
    ]
    run.steps = [StepRecord(index=1, tools=["get_issue"])]
    run.usage = Usage(input_tokens=900, output_tokens=40)
    run.answer, run.cost_usd = answer, 0.0012
    run.answered_by = AnsweredBy(model="offline", data_dir="x")
    return run


def _ids(conn: redis.Redis, key: str) -> list[str]:
    """The set's runs as a console page reads them: pending filings filed first (bot/console/pages.py)."""
    index_filing.flush(conn)
    return [m.decode() for m in conn.zrevrange(key, 0, -1)]


def _day(conn: redis.Redis, run: RunState) -> dict[bytes, bytes]:
    index_filing.flush(conn)
    return conn.hgetall(run_index.day_key(run_index.day_of(run.created_at)))  # type: ignore[return-value]


def test_a_finished_run_is_filed_once_under_each_filter_and_keeps_its_results_start(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    store.save(_run("queued"))
    assert _ids(redis_conn, run_index.all_key()) == []  # only paused or ended runs are filed
    run = _run("done")
    store.save(run)
    store.save(run)  # saved again (a surface remembering its message): filed and counted once
    assert _ids(redis_conn, run_index.all_key()) == [run.id]
    for facet, value in (("platform", "slack"), ("channel", "C1"), ("status", "done"), ("model", "offline")):
        assert _ids(redis_conn, run_index.facet_key(facet, value)) == [run.id], facet
    day = _day(redis_conn, run)
    assert (
        day[b"runs"] == b"1" and day[b"cost_micro"] == b"1200" and day[b"tokens"] == b"940" and day[b"offline"] == b"1"
    )
    kept = store.load(run.id)
    output = next(i["output"] for i in kept.items if i["type"] == "function_call_output")
    assert preview_of(output) == ("issue 3 " * 200)[:PREVIEW_CHARS]
    store.save(kept)  # a reloaded record saved again keeps the same start, counted once still
    again = next(i["output"] for i in store.load(run.id).items if i["type"] == "function_call_output")
    assert again == output and _day(redis_conn, run)[b"runs"] == b"1"
    store.save(_run("failed"))  # the day's second run: its counts add, the expiry set by the first stays
    assert _day(redis_conn, run)[b"runs"] == b"2"
    assert (
        run_index.DAY_KEEP_SECONDS - 60
        < redis_conn.ttl(run_index.day_key(run_index.day_of(run.created_at)))
        <= run_index.DAY_KEEP_SECONDS
    )


def test_a_paused_run_moves_to_its_final_status_and_is_counted_then(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    run = _run("awaiting_approval")
    store.save(run)
    assert _ids(redis_conn, run_index.facet_key("status", "awaiting_approval")) == [run.id]
    assert _day(redis_conn, run) == {}
    run.status = "done"
    store.save(run)
    assert _ids(redis_conn, run_index.facet_key("status", "awaiting_approval")) == []
    assert _ids(redis_conn, run_index.facet_key("status", "done")) == [run.id]
    assert _day(redis_conn, run)[b"runs"] == b"1"


def test_not_found_answers_are_gaps_and_votes_move_the_feedback_filters(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    unknown = _run("done", answer="I could not find anything about this in the docs or the issue tracker.")
    good = _run("done")
    store.save(unknown)
    store.save(good)
    assert _ids(redis_conn, run_index.gaps_key()) == [unknown.id]
    assert _day(redis_conn, unknown)[b"gaps"] == b"1"
    votes.toggle(redis_conn, good.id, "U2", "down")
    assert _ids(redis_conn, run_index.facet_key("feedback", "down")) == [good.id]
    votes.toggle(redis_conn, good.id, "U2", "up")
    assert _ids(redis_conn, run_index.facet_key("feedback", "down")) == []
    assert _ids(redis_conn, run_index.facet_key("feedback", "up")) == [good.id]
    votes.toggle(redis_conn, "0123456789abcdef", "U2", "up")  # a run never filed: no filter gains it
    assert _ids(redis_conn, run_index.facet_key("feedback", "up")) == [good.id]


def test_a_run_handed_off_to_maintainers_is_a_gap_whatever_it_wrote(redis_conn: redis.Redis) -> None:
    """A help-channel run that was not confident (`RunState.handoff`, issue 26) is a coverage gap: the docs did
    not answer it, even when its record holds text. The same run without the hand-off is not one."""
    handed = _run("done", answer="They back off, I think.")
    handed.handoff = "searched the docs for retries and backoff"
    answered = _run("done", answer="They back off, I think.")
    RunStore(redis_conn).save(handed)
    RunStore(redis_conn).save(answered)
    assert _ids(redis_conn, run_index.gaps_key()) == [handed.id]
    assert run_index.gap_of("done", "They back off.", "looked at the docs") == "handed_off"
    assert run_index.gap_of("running", "", "looked at the docs") == ""  # not ended: not a gap yet
    assert run_index.gap_of("failed", "They back off.", None) == "failed"


def test_an_object_saved_again_unchanged_is_not_refiled_but_a_record_loaded_again_is(redis_conn: redis.Redis) -> None:
    store = RunStore(redis_conn)
    run = _run("done")
    store.save(run)
    index_filing.flush(redis_conn)
    # The index lost the run (a worker killed between the record's SET and its filing, say).
    redis_conn.delete(
        run_index.all_key(), run_index.facet_key("status", "done"), run_index.day_key(run_index.day_of(run.created_at))
    )
    run.surface.answer_ts = ["1.3"]  # type: ignore[union-attr]  # a Slack surface remembering its message: nothing the index keeps
    store.save(run)
    assert _ids(redis_conn, run_index.all_key()) == []  # this object's filing was written moments ago: not sent again
    run.status = "partial"
    store.save(run)  # what the index keeps changed: filed again
    assert _ids(redis_conn, run_index.facet_key("status", "partial")) == [run.id]
    again = store.load(run.id)  # a re-delivery reads the record: filed again whatever this process wrote before
    again.status = "done"
    store.save(again)
    store.save(store.load(run.id))
    assert _ids(redis_conn, run_index.all_key()) == [run.id]
    assert _ids(redis_conn, run_index.facet_key("status", "done")) == [run.id]
    assert _ids(redis_conn, run_index.facet_key("status", "partial")) == []
    assert _day(redis_conn, run)[b"runs"] == b"1"  # counted by the first filing after the loss, once


def test_a_new_run_filed_first_as_paused_still_leaves_that_status_when_it_ends(redis_conn: redis.Redis) -> None:
    """A run made as the intake makes it (`unfiled`) skips leaving other statuses on its first filing only."""
    store = RunStore(redis_conn)
    for reload in (False, True):  # the pausing job's own object, or the resuming job's record read back
        run = _run("queued")
        run.unfiled = True
        store.save(run)
        run.status = "awaiting_approval"
        store.save(run)
        later = store.load(run.id) if reload else run
        later.status = "done"
        store.save(later)
        assert run.id not in _ids(redis_conn, run_index.facet_key("status", "awaiting_approval")), reload
        assert run.id in _ids(redis_conn, run_index.facet_key("status", "done"))
    assert _day(redis_conn, run)[b"runs"] == b"2"


def test_saves_leave_filings_pending_and_one_flush_files_them_in_fewer_commands_than_runs(
    redis_conn: redis.Redis,
) -> None:
    """Issue 40: a save adds its filing to a pending list (one command beside the record's), and a flush files a batch
    with a command per key touched: 80 one-step runs cost fewer commands than one per run (26 each before), and each is
    listed, counted once, and moved out of the status it left."""
    store = RunStore(redis_conn)
    paused = _run("awaiting_approval")
    store.save(paused)
    runs = [_run("done") for _ in range(80)]
    for run in runs:
        store.save(run)
    assert redis_conn.zcard(run_index.all_key()) == 0 and redis_conn.llen(index_filing.pending_key()) == 81
    before = sum(int(v["calls"]) for v in redis_conn.info("commandstats").values())
    assert index_filing.flush(redis_conn) == 81
    used = sum(int(v["calls"]) for v in redis_conn.info("commandstats").values()) - before - 1  # less the INFO
    assert used < 81, used
    assert set(_ids(redis_conn, run_index.all_key())) == {r.id for r in [paused, *runs]}
    assert set(_ids(redis_conn, run_index.facet_key("status", "done"))) == {r.id for r in runs}
    assert (
        _day(redis_conn, paused)[b"runs"] == b"80"
        and _day(redis_conn, paused)[b"cost_micro"] == str(80 * 1200).encode()
    )
    paused.status = "done"
    store.save(paused)
    store.save(runs[0])  # saved again unchanged by this object: not refiled
    again = store.load(runs[1].id)
    store.save(again)  # a record loaded again is refiled: it is counted once still
    assert _ids(redis_conn, run_index.facet_key("status", "awaiting_approval")) == []
    assert len(_ids(redis_conn, run_index.facet_key("status", "done"))) == 81
    assert _day(redis_conn, paused)[b"runs"] == b"81"
