"""read_more pages a stashed result from the real Redis stash; every failure is an error value.

The pages of a stashed text, joined, are the text exactly (no token dropped or repeated, no
character split across pages), the paging ends, and every page fits the result limit with its
note, so the loop never cuts a page again.
"""

from __future__ import annotations

import re

import pytest
import redis

from atlas import tokens
from tests.support.paging import NOTE, page_through, read
from tests.support.tools_dataset import make_dataset
from tools import ToolContext, open_corpus
from tools.results import NOTE_TOKENS, cut, page_tokens
from workers.agent.stash import RedisStash

TEXTS = {
    "prose": " ".join(f"word{i} and some more prose, line {i}." + ("\n" if i % 7 == 0 else "") for i in range(300)),
    "logs": "\n".join(
        f"2025-11-0{i % 9 + 1}T10:{i % 60:02d}:00Z ERROR orbit.worker lease expired job={i:08x} ORB-1101"
        for i in range(120)
    ),
    # Characters that byte-level tokens split (emoji, CJK, combining marks): a page must not end inside one.
    "unicode": "".join(
        f"日本語のテキスト{i} 🙂👍🏽 naïve café ẞ e\u0301 Ελληνικά {'🚀' * (i % 5)}\n" for i in range(120)
    ),
    "one long line": "x" * 14_000,
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory):
    return open_corpus(make_dataset(tmp_path_factory.mktemp("data")))


@pytest.mark.parametrize("page_size", [9, 60, page_tokens(1_500)])
@pytest.mark.parametrize("name", list(TEXTS))
def test_pages_from_the_real_stash_join_to_the_text_exactly_and_end(
    corpus, redis_conn: redis.Redis, name: str, page_size: int
) -> None:
    text = TEXTS[name]
    stash = RedisStash(redis_conn, "run-pages", page_size)
    ctx = ToolContext(corpus=corpus, stash=stash)
    total = tokens.count(text)
    pages = page_through(ctx, stash.put(text), 0, total)
    assert "".join(pages) == text
    assert len(pages) <= total // max(page_size * 2 // 3, 1) + 2  # pages are full-size, not a token each
    assert all(tokens.count(p) <= page_size + 2 for p in pages)  # +2: a page's edges may re-merge


@pytest.mark.parametrize("limit", [120, 400, 1_500])
@pytest.mark.parametrize("name", list(TEXTS))
def test_a_cut_and_every_page_fit_the_result_limit_with_their_note(
    corpus, redis_conn: redis.Redis, name: str, limit: int
) -> None:
    """A page that did not fit would be cut again by the loop and stashed under a new ref."""
    text = TEXTS[name]
    stash = RedisStash(redis_conn, "run-fit", page_tokens(limit))
    ctx = ToolContext(corpus=corpus, stash=stash)
    first = cut(text, limit, stash)
    assert tokens.count(first) <= limit
    note = NOTE.search(first)
    assert note and note["label"] == "truncated"
    shown = first[: note.start()]
    assert text.startswith(shown) and int(note["more"].replace(",", "")) == tokens.count(text) - int(note["offset"])
    offset = int(note["offset"])
    while offset is not None:
        out = read(ctx, note["ref"], offset)
        assert out.ok and tokens.count(out.text) <= limit, (offset, tokens.count(out.text))
        following = NOTE.search(out.text)
        offset = int(following["offset"]) if following else None
    assert out.text.endswith(f"[end of {note['ref']}]")


def test_the_worst_case_note_fits_its_reserve() -> None:
    longest = '\n[comment truncated: 9,999,999,999 more tokens; use read_more(ref="r9a8b7c6d5e", offset=9999999999)]'
    assert tokens.count(longest) + 8 <= NOTE_TOKENS


def test_a_cut_without_a_stash_says_how_much_is_left_and_names_no_ref() -> None:
    out = cut(TEXTS["prose"], 200, None)
    assert "read_more" not in out and re.search(r"\n\[truncated: [\d,]+ more tokens\]$", out)
    assert TEXTS["prose"].startswith(out.rsplit("\n", 1)[0]) and tokens.count(out) <= 200
    assert cut("short", 200, None) == "short"


def test_refs_are_per_run_and_a_ref_is_stripped(corpus, redis_conn: redis.Redis) -> None:
    ref = RedisStash(redis_conn, "run-a").put("hello")
    assert (
        read(ToolContext(corpus=corpus, stash=RedisStash(redis_conn, "run-a")), f" {ref} ", 0).text
        == f"hello\n[end of {ref}]"
    )
    other = read(ToolContext(corpus=corpus, stash=RedisStash(redis_conn, "run-b")), ref, 0)
    assert not other.ok and "unknown or expired" in other.text


def test_an_offset_past_the_end_is_an_error(corpus, redis_conn: redis.Redis) -> None:
    stash = RedisStash(redis_conn, "run-end")
    ref = stash.put("one two three")
    out = read(ToolContext(corpus=corpus, stash=stash), ref, tokens.count("one two three"))
    assert not out.ok and "past its end" in out.text


def test_unknown_ref_says_rerun(corpus, redis_conn: redis.Redis) -> None:
    out = read(ToolContext(corpus=corpus, stash=RedisStash(redis_conn, "run-x")), "r9", 0)
    assert not out.ok and "unknown or expired" in out.text and "Re-run the original tool" in out.text


def test_negative_offset(corpus, redis_conn: redis.Redis) -> None:
    out = read(ToolContext(corpus=corpus, stash=RedisStash(redis_conn, "run-x")), "r1", -5)
    assert not out.ok and "offset must be >= 0" in out.text


def test_no_stash(corpus) -> None:
    out = read(ToolContext(corpus=corpus), "r1", 0)
    assert not out.ok and "No stashed results" in out.text
