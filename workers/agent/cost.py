"""Dollar cost of a run's usage at the configured model's price."""

from __future__ import annotations

from atlas.settings import Price
from workers.runs.state import Usage


def dollars(usage: Usage, price: Price) -> float:
    """Cached input tokens are billed at the cached rate, the rest of the input at the full rate."""
    uncached = max(usage.input_tokens - usage.cached_tokens, 0)
    total = uncached * price.input + usage.cached_tokens * price.cached_input + usage.output_tokens * price.output
    return round(total / 1_000_000, 6)
