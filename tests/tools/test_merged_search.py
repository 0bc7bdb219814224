"""A search over every repository is one list of the best `limit` hits of all of them (tools/merged_hits.py), never
each repository's best `limit` one after the other: a repository's best comes before another's second, an issue or
section holding every word of the query before one holding some, whichever repository holds it; a cut result still
pages with read_more from the real Redis stash."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
import redis

from tests.support.paging import page_through
from tests.support.tools_dataset import make_dataset, write_issues
from tools import dispatch, open_corpus, v2_registry
from tools.context import RepoScope, ToolContext
from tools.docsearch.minilm import model_dir
from tools.repo_scope import scoped
from tools.results import cut
from tools.solved_threads import SolvedThread
from workers.agent.stash import RedisStash
from workers.knowledge import entries

A, B = "acme/lib", "acme/cli"
FILLER = "worker queue broker schedule timeout memory config install upgrade release"


def _issue(number: int, title: str, body: str = "") -> dict[str, object]:
    return {"id": number, "title": title, "body": body or f"{FILLER} {number}", "state": "open"}


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    """acme/lib: three quokka issues among forty, so the word is rare there (a high IDF: raw bm25 favours it);
    acme/cli: quokka in most bodies (a low IDF) and one issue about it, the only one with a lantern too."""
    lib = [_issue(n, f"Quokka {'flag ' * n}ignored") for n in (1, 2, 3)]
    lib += [_issue(n, f"Worker {n} stalls") for n in range(4, 40)]
    cli = [_issue(700, "Quokka lantern flickers", "the quokka lantern flickers")]
    cli += [_issue(n, f"Broker {n} drops", f"{FILLER} quokka {n}") for n in range(701, 740)]
    out = {A: make_dataset(tmp_path / "lib"), B: make_dataset(tmp_path / "cli")}
    write_issues(out[A], lib)
    write_issues(out[B], cli)
    (out[A] / "docs" / "quokka.md").write_text("# Quokka\n\n## Quokka flag\n\nThe quokka flag is ignored by lib.\n")
    (out[B] / "docs" / "lantern.md").write_text("# Lantern\n\n## Quokka lantern\n\nThe quokka lantern of the cli.\n")
    return out


def _ctx(folders: dict[str, Path], stash: RedisStash | None = None) -> ToolContext:
    scope = RepoScope((A, B), None, lambda repo: (open_corpus(folders[repo]), None))
    return ToolContext(corpus=open_corpus(folders[A]), scope=scope, stash=stash)


def _call(ctx: ToolContext, tool: str, **args: object) -> str:
    return dispatch(scoped(v2_registry(), (A, B)), tool, json.dumps({**args, "repo": None}), ctx).text


def _issues(ctx: ToolContext, query: str, limit: int, detail: str = "concise") -> list[str]:
    text = _call(ctx, "search_issues", query=query, state=None, limit=limit, detail=detail)
    return [line for line in text.splitlines()[1:] if not line.startswith("  ")]


def test_another_repositorys_best_comes_before_a_repositorys_second(folders: dict[str, Path]) -> None:
    alone = [open_corpus(folders[r]).issues.matches("quokka", None, 3) for r in (A, B)]
    assert alone[0][2].relevance > alone[1][0].relevance  # raw bm25 would list all of acme/lib's first
    hits = _issues(_ctx(folders), "quokka", 3)
    assert [h.split(" ", 1)[0] for h in hits] == [f"{A}#1", f"{B}#700", f"{A}#2"]


def test_every_word_comes_first_whichever_repository_holds_it(folders: dict[str, Path]) -> None:
    hits = _issues(_ctx(folders), "quokka lantern", 4)
    assert hits[0].startswith(f"{B}#700 ")  # acme/lib's best holds "quokka" alone
    docs = _call(_ctx(folders), "search_docs", query="quokka lantern", k=2).splitlines()
    assert docs[1].startswith(f"- {B}: lantern § Quokka lantern") and docs[2].startswith(f"- {A}: quokka")


@pytest.mark.parametrize("limit", [1, 3, 5, 20])
def test_never_more_hits_than_the_limit_over_every_repository(folders: dict[str, Path], limit: int) -> None:
    ctx = _ctx(folders)
    each = [len(open_corpus(folders[r]).issues.matches("quokka broker", None, limit)) for r in (A, B)]
    hits = _issues(ctx, "quokka broker", limit)
    assert len(hits) == min(limit, sum(each)) and sum(each) > limit  # each alone could fill the limit
    docs = _call(ctx, "search_docs", query="quokka", k=min(limit, 10)).splitlines()[1:]
    assert 0 < len([d for d in docs if d.startswith("- ")]) <= min(limit, 10)


def test_a_merged_result_cut_by_the_loop_pages_with_read_more(
    folders: dict[str, Path], redis_conn: redis.Redis
) -> None:
    stash = RedisStash(redis_conn, "run-merged")
    ctx = _ctx(folders, stash)
    text = _call(ctx, "search_issues", query="quokka broker", state=None, limit=20, detail="detailed")
    shown = cut(text, 300, stash)  # what the loop does with a result over its budget (workers/agent/loop.py)
    assert shown != text and 'use read_more(ref="' in shown
    ref, offset = shown.rsplit('read_more(ref="', 1)[1].split('", offset=')
    pages = page_through(ctx, ref, int(offset.rstrip(")]")), 40)
    assert shown.rsplit("\n[", 1)[0] + "".join(pages) == text


@pytest.mark.skipif(model_dir() is None, reason="the embedding model's package is not installed (make setup)")
def test_docs_searched_by_meaning_are_merged_on_the_cosine_not_on_each_repositorys_scaled_best(
    tmp_path: Path,
) -> None:
    """The hybrid score min-max scales the cosines within a repository: acme/lib's best section scores high though
    it is not about the question; its cosine is lower than acme/cli's answer's."""
    lib, cli = make_dataset(tmp_path / "lib"), tmp_path / "cli"
    (cli / "docs").mkdir(parents=True)
    (cli / "docs" / "overview.md").write_text(
        "# Overview\n\n## Job dependencies\n\nPass `depends_on=parent` to `enqueue`: the job is put on its queue only"
        " once its parent has succeeded.\n\n## Colours\n\nThe dashboard is blue.\n"
    )
    write_issues(cli, [_issue(1, "Broker drops")])
    corpora = {A: open_corpus(lib, semantic=True), B: open_corpus(cli, semantic=True)}
    assert all(c.docs.warm() for c in corpora.values())
    ctx = ToolContext(corpus=corpora[A], scope=RepoScope((A, B), None, lambda repo: (corpora[repo], None)))
    question = "How can I make a job wait until another job has finished before it runs?"
    best = [corpora[r].docs.search(question, 1)[0] for r in (A, B)]
    cosines = [hit.similarity for hit in best]
    assert best[0].score > 0.6 and None not in cosines and cosines[0] < cosines[1]
    docs = _call(ctx, "search_docs", query=question, k=2).splitlines()
    assert docs[1].startswith(f"- {B}: overview § Job dependencies")


def test_a_repository_without_a_hit_leaves_the_head_and_the_notes_of_the_others(folders: dict[str, Path]) -> None:
    docs = _call(_ctx(folders), "search_docs", query="lantern Kafka", k=3).splitlines()
    assert docs[0] == 'Doc sections for "lantern Kafka" in 2 repositories (best first; open one with get_doc_section):'
    assert docs[1].startswith("(No doc mentions: Kafka.") and docs[2].startswith(f"- {B}: lantern")
    issues = _call(_ctx(folders), "search_issues", query="lantern", state="open", limit=3, detail="concise")
    assert issues.splitlines()[:2] == [
        'Issues (open) matching "lantern" in 2 repositories, best first:',
        f"{B}#700 [open] Quokka lantern flickers",
    ]


def _pulls(folder: Path, pulls: list[tuple[int, str, str]]) -> None:
    rows = [
        {
            "number": n,
            "title": title,
            "body": body,
            "author": "dev",
            "state": "merged",
            "created_at": "2025-10-01",
            "merged_at": "2025-10-02T00:00:00Z",
            "closes": [],
            "files": [],
            "url": f"https://example.test/pull/{n}",
        }
        for n, title, body in pulls
    ]
    (folder / "knowledge").mkdir(parents=True, exist_ok=True)
    (folder / "knowledge" / "pulls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_history_is_merged_too_and_the_installs_solved_threads_are_shown_once(
    folders: dict[str, Path], redis_conn: redis.Redis
) -> None:
    _pulls(
        folders[A],
        [(n, f"Quokka {'flag ' * n}fix", "fixes it") for n in (1, 2, 3)]
        + [(n, f"Worker {n}", FILLER) for n in range(4, 40)],
    )
    _pulls(
        folders[B],
        [(700, "Quokka lantern fix", "the lantern")]
        + [(n, f"Broker {n}", f"{FILLER} quokka") for n in range(701, 740)],
    )
    solved = SolvedThread(
        "K0000000001", "Why is the quokka flag ignored?", "Set it twice.", (), "https://s.test/p1", 0.0
    )
    entries.save(redis_conn, replace(solved, approved_at=time.time()))
    ctx = replace(_ctx(folders), solved=entries.RedisSolvedThreads(redis_conn))
    lines = _call(ctx, "search_history", query="quokka", kind=None, limit=3).splitlines()
    assert lines[0] == 'History matching "quokka" in 2 repositories, best first (read one with get_history_item):'
    assert lines[1] == "- a solved thread K0000000001: Why is the quokka flag ignored? https://s.test/p1"
    assert sum("solved thread" in line for line in lines) == 1  # the install's, not each repository's
    pulls = [line.split(" [", 1)[0] for line in lines if line.startswith("- acme/")]
    assert pulls == [f"- {A}: PR {A}#1", f"- {B}: PR {B}#700", f"- {A}: PR {A}#2"]


def _code(folder: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (folder / "code" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "code" / path).write_text(text)
    (folder / "knowledge").mkdir(exist_ok=True)
    (folder / "knowledge" / "repo.json").write_text(json.dumps({"url": "https://example.test/r", "commit": "a" * 40}))


def test_code_is_merged_too_a_definition_first_whichever_repository_holds_it(folders: dict[str, Path]) -> None:
    mentions = "".join(f"# quokka_flag is read here, case {n}\nvalue_{n} = quokka_flag\n" for n in range(3))
    _code(folders[A], {"lib/uses.py": mentions, "lib/other.py": "# quokka_flag again\nother = 1\n"})
    _code(folders[B], {"cli/flags.py": "def quokka_flag():\n    return 'lantern'\n"})
    text = _call(_ctx(folders), "search_code", query="quokka_flag", path_prefix=None, limit=2)
    places = [line.split(" L", 1)[0] for line in text.splitlines() if line.startswith("- ")]
    assert text.startswith('Code matching "quokka_flag" in 2 repositories, best first')
    assert places == [f"- {B}: cli/flags.py", f"- {A}: lib/uses.py"]  # B's definition, then A's best mention
