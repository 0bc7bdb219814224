"""Which ids an answer cites: citing is not mentioning, quoting is not citing."""

from __future__ import annotations

import re
import string

from workers.agent.sources import sources_of
from workers.runs.state import RunState

DOCS = ["workers", "error-codes", "payloads"]


def _run(answer: str, seen: str) -> RunState:
    run = RunState(question="q", answer=answer)
    run.items = [{"type": "function_call_output", "call_id": "c1", "output": seen}]
    return run


SEEN = "[workers § Concurrency] Workers\n[error-codes § ORB-1202] ... payloads ... #12 #13"


def test_an_ordinary_word_that_is_a_doc_id_is_not_a_citation() -> None:
    assert sources_of(_run("Run more workers; payloads are small.", SEEN), DOCS) == []


def test_citation_forms_of_a_doc_id_are_citations() -> None:
    for answer in [
        "See `workers`.",
        "From workers § Concurrency.",
        "Start two (see workers).",
        "(workers) says so.",
        "[Workers](workers.md)",
    ]:
        assert sources_of(_run(answer, SEEN), DOCS) == ["workers"], answer


def test_a_compound_doc_id_named_plainly_is_a_citation() -> None:
    assert sources_of(_run("ORB-1202 is permanent (error-codes).", SEEN), DOCS) == ["error-codes"]
    assert sources_of(_run("ORB-1202 is permanent, see error-codes", SEEN), DOCS) == ["error-codes"]


def test_ids_inside_quoted_lines_are_not_citations() -> None:
    answer = "Issue #12 says:\n> duplicate of #13, see `workers` and error-codes"
    assert sources_of(_run(answer, SEEN), DOCS) == ["#12"]


def test_an_error_output_is_not_a_source() -> None:
    assert sources_of(_run("Nothing about #99.", "Error: no issue #99\nHint: search_issues"), DOCS) == []


def test_another_repository_s_issue_is_cited_with_its_name_and_linked_only_by_its_own_url() -> None:
    from workers.agent.sources import source_url

    seen = "acme/rocket:\n#12 Crash\n\nacme/cli:\nacme/cli#12 Flag ignored"
    assert sources_of(_run("See acme/cli#12 and #12.", seen), []) == ["acme/cli#12", "#12"]
    assert sources_of(_run("See acme/docs#12.", seen), []) == []  # never shown: not a source
    base = "https://github.com/acme/rocket/issues/{id}"
    assert source_url("acme/cli#12", docs_base_url="https://docs", issues_base_url=base) is None
    assert source_url("#12", docs_base_url=None, issues_base_url=base) == "https://github.com/acme/rocket/issues/12"


def test_a_doc_shown_under_its_repository_s_name_is_cited_with_it() -> None:
    from workers.agent.sources import named_docs, source_url

    seen = "acme/rocket:\n- acme/rocket: install § Setup\n\nacme/cli:\n- acme/cli: flags § Quiet"
    run = _run("Pass --quiet (see `flags`); install with pip (`install`).", seen)
    pages = {"acme/rocket": ["install", "config"], "acme/cli": ["flags", "install"], "acme/docs": ["flags"]}
    asked: list[str] = []

    def pages_of(repo: str) -> list[str]:
        asked.append(repo)
        return pages[repo]

    assert named_docs(run, pages_of, pages) == ["acme/rocket: install", "acme/cli: flags"]
    assert asked == ["acme/rocket", "acme/cli"]  # acme/docs was never shown: its pages are not read
    assert source_url("acme/cli: flags", docs_base_url="https://docs.example", issues_base_url=None) is None


def test_a_citation_is_found_in_any_case_re_ignorecase_matches() -> None:
    """The check that skips an id the answer cannot cite (no pattern compiled for it: issue 40) reads the answer as
    re.IGNORECASE does, so a citation in another case, or with a dotless i or a long s, is still one."""
    seen = SEEN + " links"
    for answer, cited in [
        ("See `WORKERS`.", ["workers"]),
        ("Start two (see Workers).", ["workers"]),
        ("From `payload\u017f`.", ["payloads"]),  # the long s
        ("From `l\u0131nks`.", ["links"]),  # the dotless i
        ("From `l\u0130nks`.", ["links"]),  # the dotted capital I, whose lower case is two characters
        ("Run more workers (see workersX).", []),
    ]:
        assert sources_of(_run(answer, seen), [*DOCS, "links"]) == cited, answer


def test_every_code_point_re_ignorecase_takes_for_an_ascii_letter_folds_to_it() -> None:
    from workers.agent.sources import _folded

    letters = re.compile("[a-z]", re.IGNORECASE)
    taken = [chr(c) for c in range(0x110000) if letters.fullmatch(chr(c))]
    assert len(taken) > 52  # some beyond ASCII (U+0130, U+0131, U+017F, U+212A today)
    for char in taken:
        for letter in string.ascii_lowercase:
            if re.fullmatch(letter, char, re.IGNORECASE):
                assert _folded(char) == letter, f"U+{ord(char):04X}"
