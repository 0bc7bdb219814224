"""Docs: parsing, ranking (error codes first), section reading, and doc ids that cannot escape the folder."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import redis

from atlas.tokens import count
from tests.support.paging import read_all
from tests.support.paths import ORBIT
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.docs_tools import SECTION_TOKENS
from tools.docsearch.pages import parse_page
from tools.results import page_tokens
from workers.agent.stash import RedisStash

REAL_DOCS = ORBIT / "docs"


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    return ToolContext(corpus=open_corpus(make_dataset(tmp_path_factory.mktemp("data"))))


def call(ctx: ToolContext, name: str, **args: object):
    return dispatch(v2_registry(), name, json.dumps(args), ctx)


def test_parse_front_matter_sections_and_fences() -> None:
    page = parse_page(
        "x",
        '---\ntitle: "T"\napplies_to: 3.x\n---\n# T\n\nIntro.\n\n## '
        "A\n\n```\n## not\n# not\n```\n\n### Sub\n\ns\n\n## `B`\nb\n",
    )
    assert (page.title, page.applies_to, page.intro) == ("T", "3.x", "Intro.")
    assert page.headings() == ["A", "A › Sub", "`B`"]
    assert "## not" in page.sections[0].text and "### Sub" in page.sections[0].text
    assert page.sections[0].children == ("A › Sub",)


def test_error_code_question_ranks_error_codes_first(ctx: ToolContext) -> None:
    for code in ("ORB-1101", "ORB-1201", "ORB-1202", "ORB-1402"):
        hit = ctx.corpus.docs.search(f"What does {code} mean?", 5)[0]
        assert hit.doc_id == "error-codes" and hit.heading.startswith(code)


def test_search_docs_output(ctx: ToolContext) -> None:
    out = call(ctx, "search_docs", query="What does ORB-1202 mean?", k=2)
    assert out.ok
    lines = out.text.splitlines()
    assert len(lines) == 3
    assert lines[1].startswith("- error-codes § ORB-1202 PermanentError [Error codes]: ")
    assert "\n" not in lines[1] and len(lines[1]) < 260


def test_search_docs_no_hits_and_empty_query(ctx: ToolContext) -> None:
    assert "No doc sections match" in call(ctx, "search_docs", query="zzyzx", k=3).text
    out = call(ctx, "search_docs", query="  ", k=3)
    assert not out.ok and "query is empty" in out.text


@pytest.mark.parametrize(
    "doc_id",
    [
        "../../etc/passwd",
        "/etc/passwd",
        "..",
        "error-codes/../../x",
        "..%2F..%2Fetc%2Fpasswd",
        "error-codes\x00",
        "~/.ssh/id_rsa",
        "C:\\Windows",
    ],
)
def test_doc_id_cannot_reach_outside_the_docs(ctx: ToolContext, doc_id: str) -> None:
    out = call(ctx, "get_doc_section", doc_id=doc_id, heading=None)
    assert not out.ok and "Unknown doc_id" in out.text and "search_docs" in out.text
    assert "root:" not in out.text


def test_unknown_doc_id_names_the_closest(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="retries", heading=None)
    assert out.text == (
        "Error: Unknown doc_id 'retries'.\n"
        "Hint: The closest id is 'retries-and-backoff'. Call search_docs to find pages."
    )
    assert "'error-codes'" in call(ctx, "get_doc_section", doc_id="eror-codes", heading=None).text


def test_intro_lists_headings(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="retries-and-backoff", heading=None)
    assert out.ok and out.text.startswith("[retries-and-backoff] Retries and backoff (applies to 3.x)\n")
    assert "- Backoff strategies\n  - Jitter\n" in out.text
    assert "- Permanent errors" in out.text


@pytest.mark.parametrize(
    "heading", ["Backoff strategies", "backoff STRATEGIES", "## Backoff strategies", " backoff  strategies "]
)
def test_heading_match_is_forgiving(ctx: ToolContext, heading: str) -> None:
    out = call(ctx, "get_doc_section", doc_id="retries-and-backoff", heading=heading)
    assert out.ok and out.text.startswith("[retries-and-backoff § Backoff strategies]")
    assert "Exponential backoff doubles" in out.text and "### Jitter" in out.text


def test_backticks_tolerated_and_doc_id_case(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="Retries-And-Backoff.md", heading="Global policy: [retries]")
    assert out.ok and "max_attempts = 3" in out.text


def test_unknown_heading_lists_real_headings(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="error-codes", heading="ORB-9999")
    assert not out.ok and "No section 'ORB-9999' in error-codes" in out.text
    for heading in ctx.corpus.docs.pages["error-codes"].headings():
        assert heading in out.text


def test_subsection_points_to_its_parent(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="retries-and-backoff", heading="Jitter")
    assert not out.ok and "subsection of 'Backoff strategies'" in out.text
    for path in (
        "Backoff strategies / Jitter",
        "Backoff strategies › Jitter",
        "Retries and backoff › Backoff strategies > Jitter",
    ):
        sub = call(ctx, "get_doc_section", doc_id="retries-and-backoff", heading=path)
        assert (
            sub.ok
            and "lockstep" in sub.text
            and sub.text.startswith("[retries-and-backoff § Backoff strategies › Jitter]")
        )


def test_long_section_is_cut_with_a_note(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="leases-and-heartbeats", heading="A very long section")
    body = out.text.split("\n", 1)[1]
    shown, note = body.rsplit("\n", 1)
    assert out.ok and count(shown) <= SECTION_TOKENS
    assert note.startswith("[section truncated: ") and "'A very long section › Tail notes'" in note
    tail = call(ctx, "get_doc_section", doc_id="leases-and-heartbeats", heading="A very long section / Tail notes")
    assert tail.ok and "far beyond the cut" in tail.text


def test_a_long_section_reads_to_its_end_through_read_more(ctx: ToolContext, redis_conn: redis.Redis) -> None:
    stashed = replace(ctx, stash=RedisStash(redis_conn, "run-docs", page_tokens(200)))
    out = call(stashed, "get_doc_section", doc_id="leases-and-heartbeats", heading="A very long section")
    section = next(
        s for s in ctx.corpus.docs.pages["leases-and-heartbeats"].sections if s.heading == "A very long section"
    )
    cut_text = out.text.split("\n", 1)[1].split(" Subsections after the cut:", 1)[0]
    assert read_all(stashed, cut_text) == section.text


@pytest.mark.skipif(not (REAL_DOCS / "error-codes.md").is_file(), reason="Orbit docs not written yet")
def test_real_docs_every_error_code_question_ranks_error_codes_first() -> None:
    import re

    from tools.docsearch.index import DocsIndex
    from tools.docsearch.pages import load_pages

    index = DocsIndex(load_pages(REAL_DOCS))
    codes = re.findall(r"^## (ORB-\d{4})", (REAL_DOCS / "error-codes.md").read_text(), re.M)
    assert len(codes) >= 10
    for code in codes:
        hit = index.search(f"What does {code} mean?", 3)[0]
        assert (hit.doc_id, hit.heading.split()[0]) == ("error-codes", code)
