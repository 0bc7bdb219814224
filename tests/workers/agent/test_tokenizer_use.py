"""A worker builds the tokenizer (47 MiB of its memory: issue 40) only once a text is too long to fit a limit by its
bytes (atlas/tokens.py `bound`): a run whose request and results are short never counts a token."""

from __future__ import annotations

from pathlib import Path

import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas import tokens
from tests.standins.responses_api import ScriptedModel
from tests.standins.turns import reply_calls, reply_text
from tests.support.agent_harness import build_agent, settings_for
from tests.support.transcripts import investigation
from tools.results import cut
from workers.agent.context import ContextBudget, bound_items, count_items, fit_call
from workers.runs.state import RunState


@settings(deadline=None)  # the first example builds the encoder
@given(st.text())
def test_the_byte_bound_is_never_under_the_count(text: str) -> None:
    assert tokens.bound(text) >= tokens.count(text)


def test_a_one_step_run_with_a_docs_search_never_builds_the_tokenizer(
    tmp_path: Path, redis_url: str, redis_conn: redis.Redis, scripted_model: ScriptedModel
) -> None:
    scripted_model.script(
        reply_calls([("search_docs", {"query": "how do retries back off", "k": 3})]),
        reply_text("Retries back off exponentially."),
    )
    _, agent, _ = build_agent(settings_for(tmp_path, redis_url, scripted_model.base_url))  # a priced model: reserved
    tokens.encoding.cache_clear()
    run = agent.run(RunState(question="How do retries back off?"))
    assert run.status == "done" and len(scripted_model.requests) == 2
    assert tokens.encoding.cache_info().currsize == 0
    assert list(redis_conn.scan_iter("atlas:spend:*"))  # each call was reserved and settled (gpt-6-luna is priced)


def test_a_request_too_long_for_its_bytes_is_counted_and_fitted() -> None:
    items = investigation([900, 900, 900])  # about 2,700 tokens of results, several times that in bytes
    budget = ContextBudget(window=4_000, output_reserve=1_000)
    assert bound_items(items) > budget.input_limit >= count_items(items)
    result = fit_call(items, budget=budget)
    assert result.items == items and result.tokens_after == count_items(items)  # counted: it fits by its tokens
    assert cut("word " * 2_000, 1_500, None).endswith("more tokens]")  # a long result is still cut by tokens
