"""Counter-based reward streams: reward number j of arm a in run r is a pure function of
(seed key, r, a, j).

Why counter-based: policies pull arms in different orders, so "common random numbers" must be
indexed by pull number, not by time. A hash of the counter (SplitMix64's finaliser) gives any
(r, a, j) in O(1) without storing streams, so blocks can be generated lazily for just the
(run, arm) pairs that need them and memory stays independent of the horizon.

Families (rewards of arm a have mean means[a]):
- bernoulli: X = 1{u < mu}, u uniform on [0, 1)
- gaussian:  X = mu + sigma * Z, Z from Box-Muller on the counters 2j-1 and 2j
- pareto:    X = x_m (1 - u)^(-1/alpha) with x_m = mu (alpha - 1) / alpha (Pareto type I, finite
             mean for alpha > 1, infinite variance for alpha <= 2: the heavy-tailed setting)
- exponential: X = -mu log(1 - u) (inverse CDF; mean mu > 0)
- poisson:   X = #{k >= 0 : F(k) <= u} with F the Poisson(mu) CDF (scipy.special.pdtr), i.e. the
             inverse CDF; mean mu in (0, 1000]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import pdtr

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
ARM_GAMMA = 0xD1B54A32D192ED03
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
TWO_NEG_53 = 2.0**-53

FAMILIES = ("bernoulli", "gaussian", "pareto", "exponential", "poisson")
MAX_POISSON_MEAN = 1000.0


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on a uint64 array (arithmetic wraps modulo 2**64)."""
    z = z.astype(np.uint64, copy=True)
    z ^= z >> np.uint64(30)
    z *= np.uint64(MIX1)
    z ^= z >> np.uint64(27)
    z *= np.uint64(MIX2)
    z ^= z >> np.uint64(31)
    return z


def seed_key(seed: int, *path: int) -> int:
    """A 64-bit stream key from a user seed and a path (instance index, policy index, ...)."""
    seq = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(p) for p in path))
    return int(seq.generate_state(1, dtype=np.uint64)[0])


def pair_keys(key: int, runs: int, arms: int) -> np.ndarray:
    """Key of each (run, arm) pair, shape (runs * arms,), row-major (run outer)."""
    r = np.repeat(np.arange(1, runs + 1, dtype=np.uint64), arms)
    a = np.tile(np.arange(1, arms + 1, dtype=np.uint64), runs)
    with np.errstate(over="ignore"):
        k = mix64(np.uint64(key) + r * np.uint64(GOLDEN))
        return mix64(k + a * np.uint64(ARM_GAMMA))


def uniforms(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """u(key, j) in [0, 1) for broadcastable uint64 keys and counters."""
    with np.errstate(over="ignore"):
        z = mix64(keys + counters * np.uint64(GOLDEN))
    return (z >> np.uint64(11)).astype(np.float64) * TWO_NEG_53


@dataclass(frozen=True)
class Family:
    """A reward family with its parameters; `draw` maps counters to rewards."""

    name: str
    sigma: float = 1.0  # gaussian noise level
    alpha: float = 2.5  # pareto tail index

    def __post_init__(self) -> None:
        if self.name not in FAMILIES:
            raise ValueError(f"unknown reward family {self.name!r}; known: {', '.join(FAMILIES)}")
        if self.name == "gaussian" and not self.sigma > 0:
            raise ValueError("gaussian rewards need sigma > 0")
        if self.name == "pareto" and not self.alpha > 1:
            raise ValueError("pareto rewards need alpha > 1 (finite mean)")

    def check_means(self, means: np.ndarray) -> None:
        if self.name == "bernoulli" and (np.any(means < 0) or np.any(means > 1)):
            raise ValueError("bernoulli arm means must lie in [0, 1]")
        if self.name in ("pareto", "exponential") and np.any(means <= 0):
            raise ValueError(f"{self.name} arm means must be positive")
        if self.name == "poisson" and (np.any(means <= 0) or np.any(means > MAX_POISSON_MEAN)):
            raise ValueError(f"poisson arm means must lie in (0, {MAX_POISSON_MEAN:g}]")

    def draw(self, keys: np.ndarray, arm_means: np.ndarray, pulls: np.ndarray) -> np.ndarray:
        """Rewards for pull numbers `pulls` (1-based, uint64, shape (m, B)) of the pairs with
        keys `keys` (m, 1) whose arms have means `arm_means` (m, 1)."""
        if self.name == "bernoulli":
            return (uniforms(keys, pulls) < arm_means).astype(np.float64)
        if self.name == "gaussian":
            two = np.uint64(2)
            u1 = 1.0 - uniforms(keys, pulls * two - np.uint64(1))  # in (0, 1]: log is finite
            u2 = uniforms(keys, pulls * two)
            z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * math.pi * u2)
            return arm_means + self.sigma * z
        u = uniforms(keys, pulls)
        if self.name == "exponential":
            return -arm_means * np.log1p(-u)
        if self.name == "poisson":
            return poisson_inverse_cdf(u, np.broadcast_to(arm_means, u.shape))
        x_m = arm_means * (self.alpha - 1.0) / self.alpha
        return x_m * (1.0 - u) ** (-1.0 / self.alpha)

    def subgaussian_scale(self, means: np.ndarray) -> float:
        """sigma with the rewards sigma-sub-Gaussian (Bernoulli 1/2, Gaussian sigma); for the
        other families, which are not sub-Gaussian, the largest finite standard deviation
        (1 when it is infinite) as a heuristic scale."""
        if self.name == "bernoulli":
            return 0.5
        if self.name == "gaussian":
            return self.sigma
        sd = max(math.sqrt(self.variance(float(m))) for m in means)
        return sd if math.isfinite(sd) and sd > 0 else 1.0

    def variance(self, mean: float) -> float:
        if self.name == "bernoulli":
            return mean * (1.0 - mean)
        if self.name == "gaussian":
            return self.sigma**2
        if self.name == "exponential":
            return mean**2
        if self.name == "poisson":
            return mean
        # Pareto I with x_m = mean (alpha - 1) / alpha has variance mean^2 / (alpha (alpha - 2)).
        return math.inf if self.alpha <= 2 else mean**2 / (self.alpha * (self.alpha - 2))

    def raw_moment(self, mean: float, order: float) -> float:
        """E|X|^order of an arm with this mean (order >= 1); infinite when it does not exist."""
        if self.name == "bernoulli":
            return mean
        if self.name == "exponential":
            return math.gamma(1.0 + order) * mean**order
        if self.name == "pareto":
            x_m = mean * (self.alpha - 1.0) / self.alpha
            return math.inf if order >= self.alpha else self.alpha * x_m**order / (self.alpha - order)
        if self.name == "gaussian" and order == 2:
            return mean**2 + self.sigma**2
        if self.name == "poisson" and order == 2:
            return mean + mean**2
        # E|X|^p <= (E X^2)^(p/2) for p <= 2 (Jensen): an upper bound, which is all a moment
        # condition E|X|^p <= u needs.
        if order <= 2:
            return self.raw_moment(mean, 2.0) ** (order / 2.0)
        raise ValueError(f"no moment of order {order} for {self.name} rewards")


@lru_cache(maxsize=64)
def _poisson_tables(means: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """CDF tables F(0..k_max) of each mean, concatenated with table j offset by j (so the whole
    array increases), and the start of each table."""
    tables, starts, start = [], [], 0
    for j, mu in enumerate(means):
        k_max = int(mu + 12.0 * math.sqrt(mu) + 40.0)
        cdf = pdtr(np.arange(k_max + 1, dtype=np.float64), mu)
        tables.append(cdf + j)
        starts.append(start)
        start += cdf.size
    return np.concatenate(tables), np.asarray(starts, dtype=np.int64)


def poisson_inverse_cdf(u: np.ndarray, means: np.ndarray) -> np.ndarray:
    """The Poisson(means) value with uniform u: #{k : F(k) <= u} (elementwise)."""
    uniq, inverse = np.unique(means, return_inverse=True)
    table, starts = _poisson_tables(tuple(float(m) for m in uniq))
    inverse = inverse.reshape(u.shape)
    found = np.searchsorted(table, u + inverse, side="right")
    return (found - starts[inverse]).astype(np.float64)
