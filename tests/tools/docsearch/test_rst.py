"""reStructuredText constructs real Sphinx projects use, each on a small page shaped like the real one (an
installation page with per-system tabs, a tutorial that cross-references other pages by path, an orphan page,
a quickstart with dunder names in literals, a page with substitutions, prose whose links wrap over lines)."""

from __future__ import annotations

from pathlib import Path

from tools.docsearch.pages import load_pages, parse_page
from tools.docsearch.rst import rst_to_markdown

INSTALL = """Installation
============

Virtual environments
--------------------

Create a project folder and a :file:`.venv` folder within:

.. tabs::

   .. group-tab:: macOS/Linux

      .. code-block:: text

         $ mkdir myproject
         $ python3 -m venv .venv

   .. group-tab:: Windows

      .. code-block:: text

         > mkdir myproject
         > py -3 -m venv .venv

.. tabs::

   .. tab:: Stable

      Install the latest release from the index.

   .. code-tab:: python Configuring

      app.config.from_object("settings")
"""


def section_text(rst: str, heading: str) -> str:
    section = parse_page("page", rst_to_markdown(rst)).section(heading)
    assert section is not None, heading
    return section.text


def intro(rst: str, title: str) -> str:
    """The text under a page's lone title (the page's title, not a section)."""
    page = parse_page("page", rst_to_markdown(rst))
    assert page.title == title and not page.sections
    return page.intro


def test_tabs_keep_their_labels_over_their_bodies() -> None:
    text = section_text(INSTALL, "Virtual environments")
    assert "macOS/Linux:\n\n```text\n$ mkdir myproject\n$ python3 -m venv .venv\n```" in text
    assert "Windows:\n\n```text\n> mkdir myproject" in text
    assert "Stable: Install the latest release from the index." in text
    assert 'Configuring:\n\n```python\napp.config.from_object("settings")\n```' in text
    assert ".." not in text and "tab::" not in text


def test_a_doc_role_shows_the_target_pages_title(tmp_path: Path) -> None:
    (tmp_path / "tutorial").mkdir()
    (tmp_path / "templating.rst").write_text("Templates\n=========\n\nJinja renders them.\n")
    (tmp_path / "views.rst").write_text("Blueprints and Views\n####################\n\nA view function.\n")
    (tmp_path / "quickstart.rst").write_text(
        "Quickstart\n==========\n\nSee :doc:`templating`, :doc:`/views` and :doc:`the tutorial <tutorial/index>`;"
        " :doc:`gone` has no page.\n"
    )
    intro = load_pages(tmp_path)["quickstart"].intro
    assert intro == "See Templates, Blueprints and Views and the tutorial; gone has no page."


def test_orphan_is_metadata_not_text() -> None:
    page = parse_page(
        "changes", rst_to_markdown(":orphan:\n:tocdepth: 2\n\nChanges\n=======\n\nVersion 3.1\n-----------\n\nFixed.\n")
    )
    assert page.title == "Changes" and page.intro == "" and page.headings() == ["Version 3.1"]
    assert "orphan" not in "\n".join(s.text for s in page.sections)


def test_two_literals_on_a_line_the_second_a_dunder_name() -> None:
    text = intro(
        "A minimal application\n=====================\n\nPass ``name`` to ``__init__`` here, and"
        " ``__name__`` there; a `link <https://example.org/>`_ too.\n",
        "A minimal application",
    )
    assert text == "Pass `name` to `__init__` here, and `__name__` there; a link too."


def test_substitutions_are_replaced_by_their_definitions() -> None:
    rst = (
        ".. |project| replace:: Flask\n.. |min_py| replace:: Python 3.9\n\nInstall\n=======\n\n"
        "|project| supports |min_py| and newer; |unknown| stays its "
        "name.\n\n.. code-block:: text\n\n   echo |project|\n"
    )
    text = intro(rst, "Install")
    assert text.startswith("Flask supports Python 3.9 and newer; unknown stays its name.")
    assert "```text\necho |project|\n```" in text  # code is never substituted


def test_a_link_wrapped_over_lines_is_parsed() -> None:
    rst = (
        "Deploying\n=========\n\nRead `the WSGI\nspecification for\nservers "
        "<https://peps.python.org/pep-3333/>`_ and the\n"
        "`Jinja\ndocs`_ first, then :ref:`the\ndeployment options\n<deploying>`.\n"
    )
    text = intro(rst, "Deploying")
    assert text == "Read the WSGI specification for servers and the\nJinja docs first, then the deployment options."
