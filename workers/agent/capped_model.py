"""A model whose every call is held to the day's spend caps (issue 38): its worst case is reserved before the
call (workers/agent/spend.py), refused with SpendCapReached when a cap has no room, settled after.

The worst case of a call is its input, counted as the context fitting counts it (workers/agent/context.py; a
short request by its bytes, never fewer than its tokens: `COUNT_FROM_BYTES`) plus a margin for the API's count, at
the full input rate, and `max_output_tokens` at the output rate: a call cannot cost more (the run's token budget
is checked between steps, never inside one), so a cap is never passed by more than the margin of a count. A call
that fails is settled to nothing: the API bills no failed request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from atlas.settings import Price
from workers.agent.context import bound_items, count_items
from workers.agent.cost import dollars
from workers.agent.model import Model, ModelReply, ModelRequest
from workers.agent.spend import Ledger, Scope

INPUT_MARGIN = 1.1  # the API's count of a request's tokens over Atlas's estimate (message framing, tool schemas)
# Below this many bytes a request's input is reserved by its bytes (English runs about 4 bytes a token, so at most
# about 36,000 input tokens more than its count: half a cent of room at gpt-6-luna's price, given back when the call
# settles), so a run of short requests never builds the tokenizer (issue 40).
COUNT_FROM_BYTES = 48_000


def worst_case(request: ModelRequest, price: Price) -> float:
    """The most `request` can cost, in dollars."""
    plain = bound_items(request.input, request.instructions, request.tools)
    counted = plain if plain <= COUNT_FROM_BYTES else count_items(request.input, request.instructions, request.tools)
    tokens = math.ceil(counted * INPUT_MARGIN)
    return (tokens * price.input + request.max_output_tokens * price.output) / 1_000_000


@dataclass(frozen=True)
class CappedModel:
    """`inner`, with every call reserved in `ledger` for `scope` at `price`."""

    inner: Model
    ledger: Ledger
    price: Price
    scope: Scope

    def respond(self, request: ModelRequest) -> ModelReply:
        if not (self.price.input or self.price.cached_input or self.price.output):
            return self.inner.respond(request)  # free (or of no known price): nothing to hold
        hold = self.ledger.reserve(self.scope, worst_case(request, self.price))
        cost = 0.0
        try:
            reply = self.inner.respond(request)
            cost = dollars(reply.usage, self.price)
            return reply
        finally:
            self.ledger.settle(hold, cost)

    def scoped(self, scope: Scope, price: Price, inner: Model | None = None) -> CappedModel:
        """The same ledger for another scope (a channel's run), price and model."""
        return replace(self, scope=scope, price=price, inner=inner or self.inner)
