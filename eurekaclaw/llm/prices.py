"""USD per million tokens, by model. The one place prices live.

Models are matched by exact name, then by the longest known prefix (so dated snapshots such as
"claude-sonnet-4-6-20260101" price like their family). Local and scripted models cost nothing.
LLM_PRICE_INPUT_PER_M / LLM_PRICE_OUTPUT_PER_M price every call of a session when both are set
(`settings_price`). An unknown model is priced at None: the ledger reports its cost as unknown,
and a dollar budget then fails closed (the run does not start without EUREKACLAW_BUDGET_TOKENS).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eurekaclaw.llm.types import Usage


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_write: float
    cache_read: float


PRICES: dict[str, Price] = {
    "claude-opus-4-1": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4": Price(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-6": Price(5.0, 25.0, 6.25, 0.50),
    "claude-sonnet-4": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": Price(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-6": Price(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 0.10),
    "claude-3-5-haiku": Price(0.80, 4.0, 1.0, 0.08),
}
FREE_BACKENDS = {"local", "scripted", "replay"}


def settings_price(settings: Any) -> Price | None:
    """The price set in LLM_PRICE_INPUT_PER_M / LLM_PRICE_OUTPUT_PER_M, when both are set.
    Cache writes are charged at 1.25x input, cache reads at the full input price (an upper bound)."""
    inp = getattr(settings, "llm_price_input_per_m", None)
    out = getattr(settings, "llm_price_output_per_m", None)
    if inp is None or out is None:
        return None
    return Price(float(inp), float(out), float(inp) * 1.25, float(inp))


def price_for(model: str, backend: str, override: Price | None = None) -> Price | None:
    if backend in FREE_BACKENDS:
        return Price(0.0, 0.0, 0.0, 0.0)
    if override is not None:
        return override
    if model in PRICES:
        return PRICES[model]
    best = max((name for name in PRICES if model.startswith(name)), key=len, default=None)
    return PRICES[best] if best else None


def cost_usd(usage: Usage, price: Price) -> float:
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_write_tokens * price.cache_write
        + usage.cache_read_tokens * price.cache_read
    ) / 1_000_000
