"""What a model's tokens cost: dollars per million, by model (ATLAS_PRICE, atlas.toml's `price` per channel)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from atlas.env_values import price_parts

if TYPE_CHECKING:
    from atlas.channel_config import ChannelsFile


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens."""

    input: float
    cached_input: float
    output: float


DEFAULT_PRICES: dict[str, Price] = {
    "gpt-6-luna": Price(input=0.10, cached_input=0.01, output=0.50),
}


def prices_of(model: str, price_raw: str | None, channels: ChannelsFile) -> dict[str, Price]:
    """The known prices, with ATLAS_PRICE ("input,cached_input,output") for ATLAS_MODEL and each atlas.toml
    channel's `price` for its model."""
    prices = dict(DEFAULT_PRICES)
    if price_raw:
        prices[model] = Price(*price_parts(price_raw))
    for c in channels.channels:
        if c.model is not None and c.price is not None:
            prices[c.model] = Price(*c.price)
    return prices
