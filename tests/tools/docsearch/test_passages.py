"""A section cut into passages the embedding model reads whole (tools/docsearch/passages.py): every passage is led
by the heading path and fits the budget, a code block stays whole when it fits and is cut between lines when
not, a heading line opens a passage rather than ending one, and no text is lost or reordered. Counted here in
words (plus [CLS] and [SEP]) so the rules are checked without the model."""

from __future__ import annotations

from collections.abc import Sequence

from tools.docsearch.passages import passages, prefix

BUDGET = 40
HEAD = prefix("RQ: Jobs", "Jobs › Job Creation")


def words(texts: Sequence[str]) -> list[int]:
    return [len(t.split()) + 2 for t in texts]


def cut(text: str) -> list[str]:
    return passages("RQ: Jobs", "Jobs › Job Creation", text, words, BUDGET)


def bodies(found: list[str]) -> list[list[str]]:
    assert all(p.startswith(HEAD + "\n") for p in found)
    return [p[len(HEAD) + 1 :].splitlines() for p in found]


PROSE = " ".join(f"Sentence {n} says what a job does when it runs." for n in range(12))
CODE = (
    "```python\n" + "\n".join(f'job = queue.enqueue(task_{n}); print("queued. Next: {n}")' for n in range(20)) + "\n```"
)


def test_every_passage_is_led_by_the_heading_path_and_fits_the_budget() -> None:
    found = cut(f"{PROSE}\n\n{PROSE}")
    assert len(found) > 2
    assert all(n <= BUDGET for n in words(found))
    assert [w for p in bodies(found) for line in p for w in line.split()] == f"{PROSE} {PROSE}".split()


def test_a_code_block_that_fits_stays_whole_in_one_passage() -> None:
    small = "```python\njob = queue.enqueue(count_words, url)\nprint(job.id)\n```"
    found = cut(f"{PROSE}\n\n{small}\n\nAfter the block.")
    holding = [b for b in bodies(found) if any("count_words" in line for line in b)]
    assert len(holding) == 1 and "\n".join(holding[0]).count("```") == 2
    assert "\n".join(holding[0]).find(small) >= 0


def test_a_long_code_block_is_cut_between_lines_never_inside_one() -> None:
    found = cut(CODE)
    assert len(found) > 1 and all(n <= BUDGET for n in words(found))
    assert [line for b in bodies(found) for line in b] == CODE.splitlines()


def test_a_heading_line_opens_the_passage_after_it() -> None:
    text = f"{PROSE}\n\n### Job Status\n\n{PROSE}"
    found = bodies(cut(text))
    assert not any(b[-1].startswith("#") for b in found)
    assert any(b[0] == "### Job Status" for b in found)


def test_a_section_with_no_text_is_its_heading_path() -> None:
    assert cut("") == [HEAD]
    assert passages("RQ: Jobs", "", "", words) == ["RQ: Jobs"]


def test_a_run_on_sentence_fits_even_when_the_counter_stops_at_the_models_limit() -> None:
    """The model's tokenizer truncates, so its counts stop at the model's limit: a sentence far longer
    than that reads as merely 'too long', and cutting it by that density alone left parts over budget."""
    limit = 60  # the counter's cap, above the budget as the real one (256) is above PASSAGE_TOKENS

    def capped(texts: Sequence[str]) -> list[int]:
        return [min(n, limit) for n in words(texts)]

    sentence = " ".join(f"word{n}" for n in range(400))  # 400 words, no sentence break
    found = passages("RQ: Jobs", "Jobs › Job Creation", sentence, capped, BUDGET)
    assert all(words([p])[0] <= BUDGET for p in found), [words([p])[0] for p in found]
    assert " ".join(" ".join(lines) for lines in bodies(found)) == sentence
