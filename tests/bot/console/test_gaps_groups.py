"""The Coverage gaps page groups questions by what they ask about (issue 30): paraphrases that share no word
land in one group by their kept vectors (the real docs encoder, through a worker's run store), unrelated
questions that share a word do not; a run without a vector still groups by its words; the CSV is those groups."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pytest
import redis

from atlas.settings import Settings
from bot.console import gaps_page
from tests.support.console_harness import served
from tests.support.tools_dataset import write_issues
from tools import open_corpus
from tools.docsearch import minilm, semantic
from tools.docsearch.minilm import model_dir
from tools.docsearch.semantic import encoder
from workers.runs.state import Origin, RunState
from workers.runs.store import RunStore

needs_model = pytest.mark.skipif(model_dir() is None, reason="the embedding model's package is not installed")
NOT_FOUND = "I could not find anything about this in the docs or the issue tracker."
# Gap questions as people ask them: three topics asked three ways each (some pairs share no stemmed word:
# "rotate the TLS certificate" / "renewing the SSL cert"), and five others, two sharing "Orbit", one "job".
ASKED_ALIKE = [
    [
        "How can I rotate the TLS certificate without downtime?",
        "Renewing the SSL cert while the server keeps running",
        "Swap HTTPS certificates on a live broker",
    ],
    [
        "How do I make a job wait until another job has finished?",
        "Can a task start only after a different task completes?",
        "Is there a way to chain jobs so one runs after the other is done?",
    ],
    [
        "Why does my worker use so much memory?",
        "The worker process keeps growing in RAM until it gets killed",
        "High memory consumption of workers over time",
    ],
]
UNRELATED = [
    "Does Orbit support Windows?",
    "What license is Orbit released under?",
    "How do I delete all queued jobs at once?",
    "How do I export metrics to Prometheus?",
    "Where are the logs written?",
]


def _save(store: RunStore, question: str, age: float) -> RunState:
    run = RunState(
        question=question,
        status="done",
        origin=Origin(kind="slack", channel="C1", user="U1", thread_ts="1.1"),
        created_at=time.time() - age,
    )
    run.answer = NOT_FOUND
    store.save(run)
    return run


def _settings(redis_url: str, tmp_path: Path) -> Settings:
    return Settings.from_env({"REDIS_URL": redis_url, "ATLAS_HOME": str(tmp_path / "home")})


@needs_model
def test_paraphrases_sharing_no_word_form_one_group_and_unrelated_questions_sharing_one_do_not(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    worker = RunStore(redis_conn, encoder)
    asked = [q for topic in ASKED_ALIKE for q in topic] + UNRELATED
    for age, question in enumerate(reversed(asked)):
        _save(worker, question, age * 60.0)
    found = gaps_page.groups(redis_conn, _settings(redis_url, tmp_path), closest=False)
    together = sorted(sorted(r.question for r in g.rows) for g in found)
    assert together == sorted([sorted(topic) for topic in ASKED_ALIKE] + [[q] for q in UNRELATED]), together
    assert [len(g.rows) for g in found] == [3, 3, 3, 1, 1, 1, 1, 1]  # largest first
    newest = [g.newest for g in found]
    assert newest[:3] == sorted(newest[:3], reverse=True) and newest[3:] == sorted(newest[3:], reverse=True)
    names = [g.word for g in found]
    assert len(set(names)) == len(names)  # each group its own name: the CSV's group column tells them apart
    memory = next(g for g in found if any("RAM" in r.question for r in g.rows))
    assert "memori" in memory.word or "worker" in memory.word  # named by the words its questions share


def test_runs_without_a_vector_still_group_by_their_words(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    web = RunStore(redis_conn)  # no embedder: as if the model's package were absent
    secrets = [_save(web, "How do I rotate webhook secrets?", 30), _save(web, "Do webhook secrets expire?", 20)]
    other = _save(web, "Where are the logs written?", 10)
    found = gaps_page.groups(redis_conn, _settings(redis_url, tmp_path), closest=False)
    assert [sorted(r.id for r in g.rows) for g in found] == [sorted(r.id for r in secrets), [other.id]]
    assert found[0].word in ("secrets", "webhook")


def test_a_group_is_named_by_the_word_as_its_questions_spell_it_not_its_stem(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path
) -> None:
    web = RunStore(redis_conn)
    _save(web, "How do I rotate secrets?", 30), _save(web, "Can I rotate the signing tokens?", 20)
    found = gaps_page.groups(redis_conn, _settings(redis_url, tmp_path), closest=False)
    assert [g.word for g in found] == ["rotate"]  # search's stem is "rotat"


@needs_model
def test_the_csv_holds_the_page_s_groups(redis_url: str, redis_conn: redis.Redis) -> None:
    worker = RunStore(redis_conn, encoder)
    for age, question in enumerate([*ASKED_ALIKE[0], *ASKED_ALIKE[2], UNRELATED[0]]):
        _save(worker, question, age * 60.0)
    _save(RunStore(redis_conn), "Do webhook secrets expire?", 1.0)  # one without a vector
    with served(redis_url, redis_conn, ATLAS_DATA="") as console:
        exported = console.signed_in().get("/gaps.csv").text
        found = gaps_page.groups(redis_conn, console.settings)
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert [(r["group"], int(r["group_count"]), r["question"], r["closest_docs"]) for r in rows] == [
        (g.word, len(g.rows), row.question, " ".join(g.closest)) for g in found for row in g.rows
    ]
    assert [len(g.rows) for g in found] == [3, 3, 1, 1]


WORKERS = """# Workers

## Starting workers

Run `orbit worker` to start a worker process. Each worker process takes jobs from its queues and keeps
running until it is stopped; start more worker processes to use more cores.

## Recycling children

A worker forks a child per job batch and replaces it after `max_jobs_per_child` jobs, so a leak in job code
cannot grow without bound. Set `rss_limit_mb` to restart a child whose resident set passes that many megabytes.
"""
MONITORING = """# Monitoring

## Prometheus metrics

`orbit serve --metrics` exposes queue depth, job latency and failure counts for Prometheus to scrape.
"""


def _docs_folder(data: Path, home: Path, redis_url: str) -> Settings:
    (data / "docs").mkdir(parents=True)
    (data / "docs" / "workers.md").write_text(WORKERS)
    (data / "docs" / "monitoring.md").write_text(MONITORING)
    write_issues(data, [])
    return Settings.from_env({"REDIS_URL": redis_url, "ATLAS_DATA": str(data), "ATLAS_HOME": str(home)})


@needs_model
def test_the_closest_docs_of_a_group_by_meaning_come_from_the_kept_vectors_without_the_model(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, home = tmp_path / "data", tmp_path / "home"
    settings = _docs_folder(data, home, redis_url)
    worker_docs = open_corpus(settings.data_dir, settings.home, True).docs
    assert worker_docs.warm(wait=True)  # a worker embeds the sections and keeps their vectors (docs_vectors.db)
    store = worker_docs.vectors_store
    assert store is not None and store.is_file()
    kept_at = store.stat().st_mtime_ns
    worker = RunStore(redis_conn, encoder)
    for age, question in enumerate(ASKED_ALIKE[2]):  # the worker-memory questions
        _save(worker, question, age * 60.0)
    web_docs = open_corpus(settings.data_dir, settings.home, False).docs
    lexical = [h.doc_id + "#" + h.heading for h in web_docs.search(" ".join(ASKED_ALIKE[2]), k=3, mode="lexical")]
    assert lexical[0] == "workers#Starting workers"  # by words: the section that says "worker process" most

    def no_model(*_: object) -> None:
        raise AssertionError("the web process loaded the embedding model")

    monkeypatch.setattr(semantic, "encoder", no_model)
    monkeypatch.setattr(minilm.Encoder, "load", no_model)
    [group] = gaps_page.groups(redis_conn, settings)
    assert group.closest[0] == "workers#Recycling children", group.closest  # by meaning: what the questions ask
    assert store.stat().st_mtime_ns == kept_at  # read, never written

    store.unlink()  # no kept vectors (a fresh data folder, or the model never ran): the words decide again
    fresh = tmp_path / "data2"
    fresh.mkdir()
    for name in ("docs", "issues"):
        (data / name).rename(fresh / name)
    other = Settings.from_env({"REDIS_URL": redis_url, "ATLAS_DATA": str(fresh), "ATLAS_HOME": str(home)})
    [group] = gaps_page.groups(redis_conn, other)
    assert group.closest == lexical


@needs_model
def test_docs_vectors_a_worker_keeps_after_the_first_view_are_read_on_a_later_one(
    redis_url: str, redis_conn: redis.Redis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _docs_folder(tmp_path / "data", tmp_path / "home", redis_url)
    worker = RunStore(redis_conn, encoder)
    for age, question in enumerate(ASKED_ALIKE[2]):
        _save(worker, question, age * 60.0)
    monkeypatch.setattr(gaps_page, "REREAD_SECONDS", 0.0)  # no wait between reads of a changed store
    [group] = gaps_page.groups(redis_conn, settings)
    assert group.closest[0] == "workers#Starting workers"  # no vectors kept yet: by words
    assert open_corpus(settings.data_dir, settings.home, True).docs.warm(wait=True)  # a worker starts
    [group] = gaps_page.groups(redis_conn, settings)
    assert group.closest[0] == "workers#Recycling children"
