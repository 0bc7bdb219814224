"""A solved thread's entry, below the platforms (issue 39): the model's draft is asked for in a strict schema with
the thread as data and made anonymous again; a reply off the format falls back (None and why); approved entries
are found by search_history, first and cited as a solved thread, and a forgotten one is found no more."""

from __future__ import annotations

import json
import time
from pathlib import Path

import redis

from atlas.settings import Settings
from tests.standins.responses_api import ScriptedModel, reply_text
from tests.support.tools_dataset import make_dataset
from tools.context import ToolContext
from tools.corpus import open_corpus
from tools.history_tools import NOTHING, SearchHistoryArgs, search_history
from tools.solved_threads import SolvedThread
from workers.agent.model import ResponsesModel
from workers.knowledge import entries, entry_model
from workers.knowledge.entry_draft import draft
from workers.runs.state import Origin, RunState

RUN = RunState(
    question="<@U0ATLAS> Hi all, my worker loses its lease under load. How do I keep CPU-bound jobs alive?",
    answer="Raise `lease_seconds` to 120 (thanks <@U0BOB>!): https://orbit.example/leases",
    status="done",
    origin=Origin(kind="slack", team="T1", channel="C1", message_ts="1.1", user="U0ASKER"),
)


def test_the_models_entry_is_strict_data_in_and_anonymous_out_and_off_the_format_falls_back(tmp_path: Path) -> None:
    with ScriptedModel() as model:
        model.script(
            reply_text(
                json.dumps(
                    {
                        "question": "How does Maria Lopez keep CPU-bound jobs alive?",
                        "answer": "@bob says: raise `lease_seconds` to 120.",
                    }
                )
            ),
            reply_text("Sure! Here is the entry."),
        )
        responses = ResponsesModel(Settings.from_env({**model.env(), "ATLAS_HOME": str(tmp_path)}))
        made = entry_model.write(
            responses,
            RUN,
            "https://slack.example/p1",
            ["Maria Lopez"],
            max_tokens=8000,
            max_seconds=20,
            project="Orbit",
        )
        off = entry_model.write(responses, RUN, None, [], max_tokens=8000, max_seconds=20, project="Orbit")
        [first, _] = model.bodies()
    assert made.draft is not None and made.failure == ""
    assert (
        made.draft.question == "How does keep CPU-bound jobs alive?"
        and made.draft.answer == "says: raise `lease_seconds` to 120."
    )
    assert made.draft.links == ("https://orbit.example/leases",) and made.draft.permalink == "https://slack.example/p1"
    assert first["text"]["format"]["type"] == "json_schema" and first["text"]["format"]["strict"] is True
    assert first["tools"] == [] and "lease" in first["input"][0]["content"] and "lease" not in first["instructions"]
    assert off.draft is None and off.failure == "the answer is not in the entry format"
    offline = draft(RUN, "https://slack.example/p1", ["Maria Lopez"])
    assert offline.question == "How do I keep CPU-bound jobs alive?" and "U0BOB" not in offline.answer


def test_search_history_finds_an_approved_entry_as_a_solved_thread_until_it_is_forgotten(
    redis_conn: redis.Redis, tmp_path: Path
) -> None:
    root = make_dataset(tmp_path / "data")
    entries.save(
        redis_conn,
        SolvedThread(
            "K0000000001",
            "How do I keep CPU-bound jobs alive?",
            "Raise `lease_seconds` to 120.",
            ("https://orbit.example/leases",),
            "https://slack.example/p1",
            time.time(),
        ),
    )
    ctx = ToolContext(corpus=open_corpus(root), solved=entries.RedisSolvedThreads(redis_conn))
    found = search_history(SearchHistoryArgs(query="CPU-bound jobs lose their lease", kind=None, limit=5), ctx)
    assert isinstance(found, str) and found.splitlines()[1] == (
        "- a solved thread K0000000001: How do I keep CPU-bound jobs alive? https://slack.example/p1"
    )
    unrelated = search_history(SearchHistoryArgs(query="dashboard colour", kind=None, limit=5), ctx)
    assert unrelated == NOTHING  # no synced history and no entry shares the words
    assert entries.forget(redis_conn, "K0000000001") and not entries.forget(redis_conn, "K0000000001")
    assert (
        search_history(SearchHistoryArgs(query="CPU-bound jobs lose their lease", kind=None, limit=5), ctx) == NOTHING
    )
