"""Docs written for site generators: MkDocs (admonitions, tabs, autodoc directives, raw HTML) and Sphinx
(reStructuredText). Small pages written here cover each construct; HTTPX's MkDocs pages in
../shared/evals/httpx (a real project's docs, when present) must read with no marker left and every
heading reachable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.paths import SHARED
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, dispatch, open_corpus, v2_registry
from tools.docsearch.index import DocsIndex
from tools.docsearch.pages import load_pages, parse_page
from tools.docsearch.rst import rst_to_markdown

HTTPX = SHARED / "evals" / "httpx"
needs_httpx = pytest.mark.skipif(not (HTTPX / "docs").is_dir(), reason="no HTTPX data at ../shared/evals/httpx")

MKDOCS = """---
title: "Proxies"
---

!!! hint
    If you are coming from Requests, `httpx.Client()` is what you use instead of `requests.Session()`.

## Forwarding

<div align="center">
    <img src="https://example.org/proxy.png"/>
    <figcaption><em>Diagram of how a proxy works; the client requests <code>example.com</code>.</em></figcaption>
</div>

!!! tip "Gotcha"
    Pass the proxy URL &amp; its scheme:

    ```python
    import httpx
    with httpx.Client(proxy="http://localhost:8030") as client:
        ...
    ```

=== "Sync"
    Use a plain `Client` for blocking code.

=== "Async"
    Use an `AsyncClient` inside an event loop.

## `Client`

::: httpx.Client
    :docstring:
    :members: headers cookies params auth request get

## Installing

```shell
$ pip install httpx[socks]
```

Install the optional SOCKS support with pip.
"""

RST = """.. _retries:

=================
Retrying requests
=================

A request that fails can be tried again, see :ref:`the backoff
guide <backoff>` and :class:`~rq.retry.Retry`.

Setting it up
=============

Pass ``retry=`` to :func:`rq.Queue.enqueue`::

    from rq import Retry
    queue.enqueue(say_hello, retry=Retry(max=3))

.. note::
   Retries are counted per job, not per worker.

.. code-block:: python
   :caption: with intervals

   queue.enqueue(say_hello, retry=Retry(max=3, interval=[10, 30, 60]))

Intervals
---------

Each wait is in seconds; see `the Redis docs <https://redis.io/docs>`_.

.. autoclass:: rq.retry.Retry
   :members:

Giving up
=========

.. toctree::
   :maxdepth: 2

   failures

After the last try the job goes to the |failed| registry.

.. |failed| replace:: failed
"""


def call(ctx: ToolContext, name: str, **args: object):
    return dispatch(v2_registry(), name, json.dumps(args), ctx)


def test_an_admonition_reads_as_its_title_over_its_dedented_body() -> None:
    page = parse_page("proxies", MKDOCS)
    assert page.intro.startswith("Hint: If you are coming from Requests")
    forwarding = page.section("Forwarding")
    assert forwarding is not None
    assert "Gotcha: Pass the proxy URL & its scheme:" in forwarding.text
    assert "\n```python\nimport httpx\nwith httpx.Client(" in forwarding.text  # the fence is a fence again
    assert "!!!" not in forwarding.text and "    import httpx" not in forwarding.text


def test_tabs_read_as_their_titles_over_their_bodies() -> None:
    text = parse_page("proxies", MKDOCS).section("Forwarding").text  # type: ignore[union-attr]
    assert "Sync: Use a plain `Client` for blocking code." in text
    assert "Async: Use an `AsyncClient` inside an event loop." in text and "===" not in text


def test_an_autodoc_directive_is_a_reference_line_naming_the_object() -> None:
    section = parse_page("proxies", MKDOCS).section("`Client`")
    assert section is not None and section.text == "Reference: `httpx.Client`"


def test_raw_html_is_reduced_to_its_text() -> None:
    text = parse_page("proxies", MKDOCS).section("Forwarding").text  # type: ignore[union-attr]
    assert "Diagram of how a proxy works; the client requests `example.com`." in text
    assert "<" not in text.split("```")[0]


def test_an_html_heading_is_a_heading() -> None:
    page = parse_page("home", '<h1 align="center">\nHTTPX\n</h1>\n\n<em>A client.</em>\n\n## Install\n\npip.\n')
    assert page.title == "HTTPX" and page.headings() == ["Install"] and page.intro == "A client."


def test_a_snippet_is_never_a_line_of_code() -> None:
    index = DocsIndex({"proxies": parse_page("proxies", MKDOCS)})
    hits = {h.heading: h.snippet for h in index.search("import httpx pip install socks", 5)}
    assert hits["Installing"] == "Install the optional SOCKS support with pip."
    assert not any(s.startswith(("import httpx", "$ pip", "with httpx")) for s in hits.values())


def test_rst_titles_and_sections_come_from_their_underlines() -> None:
    page = parse_page("retries", rst_to_markdown(RST))
    assert page.title == "Retrying requests"
    assert page.headings() == ["Setting it up", "Setting it up › Intervals", "Giving up"]
    assert page.intro.startswith("A request that fails can be tried again, see the backoff guide and `Retry`.")


def test_rst_code_is_kept_and_directives_and_roles_are_text() -> None:
    page = parse_page("retries", rst_to_markdown(RST))
    setup = page.section("Setting it up")
    assert setup is not None
    assert (
        "Pass `retry=` to `rq.Queue.enqueue`:\n\n```\nfrom rq import "
        "Retry\nqueue.enqueue(say_hello, retry=Retry(max=3))\n```" in setup.body
    )
    assert "Note: Retries are counted per job, not per worker." in setup.body
    assert "```python\nqueue.enqueue(say_hello, retry=Retry(max=3, interval=[10, 30, 60]))\n```" in setup.body
    intervals = page.section("Setting it up › Intervals")
    assert (
        intervals is not None
        and intervals.body == "Each wait is in seconds; see the Redis docs.\n\nReference: `rq.retry.Retry`"
    )
    giving_up = page.section("Giving up")
    assert giving_up is not None and giving_up.body == "After the last try the job goes to the failed registry."
    assert "::" not in "\n".join(s.text for s in page.sections) and ".." not in page.intro


def test_a_sphinx_page_is_served_with_every_heading_reachable(tmp_path: Path) -> None:
    root = make_dataset(tmp_path)
    (root / "docs" / "retries.rst").write_text(RST)
    ctx = ToolContext(corpus=open_corpus(root))
    page = ctx.corpus.docs.pages["retries"]
    for heading in page.headings():
        out = call(ctx, "get_doc_section", doc_id="retries.rst", heading=heading)
        assert out.ok and out.text.startswith(f"[retries § {heading}] Retrying requests"), out.text
    found = call(ctx, "search_docs", query="how long is each wait between intervals", k=3)
    assert found.ok and "- retries § Setting it up [Retrying requests]: Each wait is in seconds" in found.text


@needs_httpx
def test_httpx_mkdocs_pages_read_with_no_marker_left_and_every_heading_reachable(tmp_path: Path) -> None:
    root = tmp_path / "httpx"
    (root / "issues").mkdir(parents=True)
    (root / "docs").symlink_to(HTTPX / "docs")
    (root / "issues" / "issues.jsonl").write_text((HTTPX / "issues" / "issues.jsonl").read_text())
    ctx = ToolContext(corpus=open_corpus(root))
    pages = ctx.corpus.docs.pages
    assert len(pages) == 23 and pages["home"].intro.startswith("A next-generation HTTP client for Python.")
    for page in pages.values():
        prose = "\n".join([page.intro, *(s.body for s in page.sections)]).split("```")[::2]  # outside code
        assert not any(m in part for part in prose for m in ("!!! ", "::: ", ":docstring:", "<figcaption", "<img")), (
            page.doc_id
        )
        for heading in page.headings():
            out = call(ctx, "get_doc_section", doc_id=page.doc_id, heading=heading)
            assert out.ok and out.text.startswith(f"[{page.doc_id} § {heading}]"), out.text
    assert "Reference: `httpx.TimeoutException`" in pages["exceptions"].sections[-1].text or any(
        "Reference: `httpx.TimeoutException`" in s.text for s in pages["exceptions"].sections
    )


@needs_httpx
def test_httpx_snippets_are_prose() -> None:
    index = DocsIndex(load_pages(HTTPX / "docs"))
    for query in ("import httpx", "proxy diagram", "TimeoutException", "async client"):
        for hit in index.search(query, 5):
            assert hit.snippet and not hit.snippet.startswith((">>>", "import ", "$ ", ":::", "!!!", "<")), (query, hit)
