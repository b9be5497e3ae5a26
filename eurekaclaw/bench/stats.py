"""Rates with Wilson score intervals, and McNemar's exact test for paired configurations.

Plain arithmetic on purpose: a bench report must not need scipy to say how sure it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # two-sided 95 %


@dataclass(frozen=True)
class Rate:
    hits: int
    n: int
    low: float | None
    high: float | None

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    def as_dict(self) -> dict[str, float | int | None]:
        def rnd(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {"hits": self.hits, "n": self.n, "rate": rnd(self.value), "low": rnd(self.low), "high": rnd(self.high)}

    def text(self) -> str:
        if not self.n:
            return "n/a"
        return f"{self.hits}/{self.n} = {self.value:.0%} [{self.low:.0%}, {self.high:.0%}]"


def wilson(hits: int, n: int, z: float = Z95) -> Rate:
    """The Wilson score interval: sensible at 0/n and n/n, unlike the normal approximation."""
    if hits < 0 or n < 0 or hits > n:
        raise ValueError(f"invalid rate {hits}/{n}")
    if n == 0:
        return Rate(0, 0, None, None)
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at 0/n and n/n the bound is exactly 0 or 1; rounding must not put it a hair inside
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    high = 1.0 if hits == n else min(1.0, centre + half)
    return Rate(hits, n, low, high)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (A right and B wrong, and the
    reverse): a binomial test of only_a against Bin(only_a + only_b, 1/2)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / (1 << n)
    return min(1.0, 2 * tail)
