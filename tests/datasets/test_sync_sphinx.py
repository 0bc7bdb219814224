"""A Sphinx project's reStructuredText docs synced from GitHub (issue 39, "every heading reachable"): `.rst`
pages under the docs root are synced beside the Markdown ones, read as rst.py reads a local folder (titles,
tabs, `:doc:` roles showing the page's title, `:orphan:` left out), each page's link its file on GitHub, and a
page removed upstream is removed. Before, the sync took `.md` files only: a Sphinx project had no docs at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.standins.github_api import GitHubAPI
from tests.standins.github_repo import generate
from tests.support.github_harness import run_sync, settings_for
from tools import ToolContext, dispatch, open_corpus, v2_registry

INDEX = b"""Rocket
======

Rocket runs jobs. Start with :doc:`guides/install` or :doc:`the FAQ </faq>`.

.. toctree::

   guides/install
"""

INSTALL = b""":orphan:

Installing Rocket
=================

Virtual environments
--------------------

.. tabs::

   .. group-tab:: macOS/Linux

      .. code-block:: text

         $ python3 -m venv .venv

   .. group-tab:: Windows

      .. code-block:: text

         > py -3 -m venv .venv

Redis
-----

Set ``ROCKET_REDIS_URL`` before |project| starts.

.. |project| replace:: the worker
"""


@pytest.fixture
def api() -> Iterator[GitHubAPI]:
    with GitHubAPI(generate(3, comments=0)) as server:
        server.repo.files["docs/overview.rst"] = INDEX
        server.repo.files["docs/guides/install.rst"] = INSTALL
        yield server
        assert server.violations == []


def test_a_sphinx_projects_pages_are_synced_with_every_heading_reachable(api: GitHubAPI, tmp_path: Path) -> None:
    settings = settings_for(api, tmp_path)
    assert run_sync(api, settings).complete
    ctx = ToolContext(corpus=open_corpus(settings.data_dir))
    pages = ctx.corpus.docs.pages
    install = pages["guides-install"]
    assert install.title == "Installing Rocket" and install.headings() == ["Virtual environments", "Redis"]
    assert install.url.endswith("/acme/rocket/blob/main/docs/guides/install.rst")
    assert pages["overview"].intro.startswith("Rocket runs jobs. Start with Installing Rocket or the FAQ.")
    for heading in install.headings():
        args = json.dumps({"doc_id": "guides-install", "heading": heading})
        out = dispatch(v2_registry(), "get_doc_section", args, ctx)
        assert out.ok and out.text.startswith(f"[guides-install § {heading}] Installing Rocket"), out.text
    text = "\n".join(s.text for s in install.sections)
    assert "macOS/Linux:" in text and "Windows:" in text and "orphan" not in text and "atlas-url" not in text
    assert "Set `ROCKET_REDIS_URL` before the worker starts." in text

    del api.repo.files["docs/guides/install.rst"]
    report = run_sync(api, settings)
    assert report.docs_removed == 1 and "guides-install" not in open_corpus(settings.data_dir).docs.pages
