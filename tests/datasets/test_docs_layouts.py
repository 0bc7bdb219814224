"""Docs in real-project layouts: any heading depth, titles from anywhere, site markup, plain-word search.

Synthetic pages written here cover each layout; the RQ data in ../shared/evals/rq (a real project's
docs, when present) must load without layout warnings and have every heading reachable.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.support.paths import SHARED
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.docsearch.index import DocsIndex
from tools.docsearch.markup import strip_markup
from tools.docsearch.pages import load_pages, parse_page
from tools.docsearch.terms import query_tokens, tokens

RQ = SHARED / "evals" / "rq"
needs_rq = pytest.mark.skipif(not (RQ / "docs").is_dir(), reason="no RQ data at ../shared/evals/rq")

ALL_H3 = """---
title: "RQ-like: Connections"
---

### The connection parameter

Pass `connection=` to every queue.

### Sentinel support

Give a dictionary with the sentinel hosts.

### Timeout

Socket timeouts in seconds.
"""
DEEP = """## Callbacks

Callbacks run after a job.

### On success

Runs when the job returns.

#### Signature

`on_success(job, connection, result)`

### On failure

Runs when the job raises.

## Callbacks

A second block with the same heading.
"""
MARKUP = """# Markup page

See [the workers page]({{site.baseurl}}/workers/) for more.
{: .warning}
Careful: this is a warning.
<!-- an editor's note
over two lines -->
{% include footer.html %}

```console
pytest --cov-report={{report_format}}
<!-- kept: this is code -->
```
"""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = make_dataset(tmp_path)
    (root / "docs" / "connections.md").write_text(ALL_H3)
    (root / "docs" / "callbacks.md").write_text(DEEP)
    (root / "docs" / "markup.md").write_text(MARKUP)
    (root / "docs" / "flat.md").write_text("Just a paragraph, no headings at all.\n")
    return ToolContext(corpus=open_corpus(root))


def call(ctx: ToolContext, name: str, **args: object):
    return dispatch(v2_registry(), name, json.dumps(args), ctx)


def test_a_page_of_only_h3_headings_has_its_sections() -> None:
    page = parse_page("connections", ALL_H3)
    assert page.headings() == ["The connection parameter", "Sentinel support", "Timeout"]
    assert page.intro == "" and "sentinel hosts" in page.sections[1].text


def test_nested_headings_keep_their_parents_as_a_path() -> None:
    page = parse_page("callbacks", DEEP)
    assert page.headings() == [
        "Callbacks",
        "Callbacks › On success",
        "Callbacks › On success › Signature",
        "Callbacks › On failure",
        "Callbacks (2)",
    ]
    assert "#### Signature" in page.sections[0].text and "on_success(job" in page.sections[0].text
    assert page.sections[0].children == ("Callbacks › On success", "Callbacks › On failure")


@pytest.mark.parametrize(
    ("markdown", "title"),
    [
        ('---\ntitle: "From front matter"\n---\n# Heading title\n\n## A\n', "From front matter"),
        ("# Heading title\n\nIntro.\n\n## A\n", "Heading title"),
        ("## Only a second-level heading\n\ntext\n", "Only a second-level heading"),
        ("No heading at all.\n", "page-stem"),
    ],
)
def test_title_from_front_matter_else_first_heading_else_file_name(markdown: str, title: str) -> None:
    assert parse_page("page-stem", markdown).title == title


def test_a_lone_leading_h1_is_the_title_but_a_later_h1_is_a_section() -> None:
    page = parse_page("x", "## Built-in Exceptions\n\nList.\n\n# AbandonedJobError\n\nWhat it means.\n")
    assert page.headings() == ["Built-in Exceptions", "AbandonedJobError"]


def test_markup_is_stripped_from_prose_and_kept_in_code() -> None:
    text = strip_markup(MARKUP)
    assert "{{site.baseurl}}" not in text and "(/workers/)" in text
    assert "{: .warning}" not in text and "Careful: this is a warning." in text
    assert "editor's note" not in text and "over two lines" not in text and "{% include" not in text
    assert "--cov-report={{report_format}}" in text and "<!-- kept: this is code -->" in text


def test_get_doc_section_reaches_h3_only_pages_by_heading_or_title_path(ctx: ToolContext) -> None:
    for heading in ("Sentinel support", "Connections › Sentinel support", "RQ-like: Connections / sentinel SUPPORT"):
        out = call(ctx, "get_doc_section", doc_id="connections", heading=heading)
        assert out.ok and out.text.startswith("[connections § Sentinel support]") and "sentinel hosts" in out.text


def test_a_wrong_heading_lists_the_real_headings_never_an_empty_list(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="connections", heading="Sentinel")
    assert not out.ok and "'The connection parameter'; 'Sentinel support'; 'Timeout'" in out.text
    flat = call(ctx, "get_doc_section", doc_id="flat", heading="Anything")
    assert not flat.ok and "flat has no sections" in flat.text and "heading null" in flat.text
    assert "The real headings are: ." not in out.text + flat.text


def test_deep_sections_read_by_path_and_nested_names_point_to_the_path(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="callbacks", heading="Callbacks › On success › Signature")
    assert out.ok and "on_success(job, connection, result)" in out.text
    nested = call(ctx, "get_doc_section", doc_id="callbacks", heading="Signature")
    assert not nested.ok and "'Callbacks › On success › Signature'" in nested.text
    second = call(ctx, "get_doc_section", doc_id="callbacks", heading="Callbacks (2)")
    assert second.ok and "A second block" in second.text


def test_intro_lists_nested_sections_indented(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="callbacks", heading=None)
    assert out.ok and "- Callbacks\n  - On success\n    - Signature\n  - On failure\n" in out.text


def test_what_the_model_reads_has_no_markup(ctx: ToolContext) -> None:
    out = call(ctx, "get_doc_section", doc_id="markup", heading=None)
    assert out.ok and out.text.startswith("[markup] Markup page\n")
    assert "{{site" not in out.text and "{:" not in out.text and "editor's note" not in out.text
    assert "{{report_format}}" in out.text


def test_repeated_heading_is_a_layout_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "callbacks.md").write_text(DEEP)
    (tmp_path / "connections.md").write_text(ALL_H3)
    with caplog.at_level(logging.WARNING, logger="tools.docsearch.pages"):
        load_pages(tmp_path)
    assert [r.getMessage() for r in caplog.records] == [
        "docs/callbacks.md: repeated heading paths, reachable with a ' (2)' suffix: Callbacks (2)"
    ]


def test_exact_tokens_stay_whole_and_identifiers_split() -> None:
    assert {"enqueue_at", "enqueu", "at"} <= set(tokens("enqueue_at"))
    assert {"orb-1202", "orb", "1202"} <= set(tokens("ORB-1202"))
    assert {"3.1.0", "3", "1", "0"} <= set(tokens("3.1.0"))
    assert {"failedjobregistry", "fail", "job", "registri"} <= set(tokens("FailedJobRegistry"))
    assert {"rq.retry", "rq", "retri"} <= set(tokens("rq.Retry"))
    assert query_tokens("when is enqueue_at used") == ["enqueue_at", "enqueu", "use"]


def test_stemming_and_exact_codes_both_rank() -> None:
    pages = {
        p.doc_id: p
        for p in (
            parse_page("sched", "## Scheduled jobs\n\nUse `enqueue_at` or `enqueue_in`.\n"),
            parse_page("other", "## Release 3.1.0\n\nThe scheduler flag changed in 3.1.0.\n"),
            parse_page("noise", "## Workers\n\nA worker runs jobs; jobs at a time.\n"),
        )
    }
    index = DocsIndex(pages)
    assert index.search("how do I schedule something", 1)[0].doc_id == "sched"
    assert index.search("enqueue_at", 1)[0].doc_id == "sched"
    assert index.search("what changed in 3.1.0", 1)[0].doc_id == "other"


def test_search_names_words_no_doc_mentions(ctx: ToolContext) -> None:
    out = call(ctx, "search_docs", query="retry with Kafka", k=2)
    assert out.ok and "(No doc mentions: Kafka." in out.text
    assert "No doc mentions" not in call(ctx, "search_docs", query="What does ORB-1202 mean?", k=2).text


@needs_rq
def test_rq_docs_load_without_layout_warnings(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tools.docsearch.pages"):
        pages = load_pages(RQ / "docs")
    assert len(pages) == 25 and caplog.records == []


@needs_rq
def test_every_rq_heading_is_reachable(tmp_path: Path) -> None:
    root = tmp_path / "rq"
    (root / "issues").mkdir(parents=True)
    (root / "docs").symlink_to(RQ / "docs")
    (root / "issues" / "issues.jsonl").write_text((RQ / "issues" / "issues.jsonl").read_text())
    ctx = ToolContext(corpus=open_corpus(root))
    count = 0
    for page in ctx.corpus.docs.pages.values():
        markdown = (RQ / "docs" / f"{page.doc_id}.md").read_text()
        for heading in page.headings():
            out = call(ctx, "get_doc_section", doc_id=page.doc_id, heading=heading)
            assert out.ok and out.text.startswith(f"[{page.doc_id} § {heading}]"), out.text
            assert heading.split(" › ")[-1] in markdown
            count += 1
    assert count >= 150
    out = call(ctx, "get_doc_section", doc_id="connections", heading="Sentinel support")
    assert out.ok and "SENTINEL" in out.text


@needs_rq
def test_the_issue_question_finds_a_scheduling_section() -> None:
    """#14's first example (it is in the development set, rq_docs.jsonl, with the sections that answer it)."""
    question = "How do I schedule a job to run at a specific time, and does the worker need any flag for that?"
    hits = DocsIndex(load_pages(RQ / "docs")).search(question, 3)
    assert {("scheduling", "Scheduling Jobs"), ("scheduling", "Running the Scheduler")} & {
        (h.doc_id, h.heading) for h in hits
    }


def test_a_heading_that_repeats_the_title_is_read_as_its_section(ctx: ToolContext, tmp_path: Path) -> None:
    (ctx.corpus.data_dir / "docs" / "perf.md").write_text(
        "## Notes on Performance\n\nSimpleWorker is faster.\n\n### Script\n\ncode\n"
    )
    fresh = ToolContext(corpus=open_corpus(ctx.corpus.data_dir))
    assert fresh.corpus.docs.pages["perf"].title == "Notes on Performance"
    out = call(fresh, "get_doc_section", doc_id="perf", heading="Notes on Performance")
    assert out.ok and out.text.startswith("[perf § Notes on Performance]") and "SimpleWorker is faster." in out.text


def test_the_rq_bench_skips_cleanly_without_the_data(tmp_path: Path) -> None:
    from bench import docs_questions

    tables = docs_questions.run(tmp_path / "absent")
    assert len(tables) == 1 and tables[0].rows == [] and tables[0].notes[0].startswith("skipped: no RQ data at ")
