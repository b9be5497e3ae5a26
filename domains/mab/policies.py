"""Bandit policies, vectorised over R independent runs.

A policy sees the runs as an (R, K) matrix of per-arm features (empirical mean, count, ...) kept
by a PairWindow; one time step is a handful of numpy operations on that matrix for all runs at
once. Ties go to the lowest arm index (numpy argmax), in every policy.

Index formulas (n = pulls of the arm, mean = its empirical mean, t = current time, T = horizon):
- ucb1:        mean + sqrt(2 ln t / n)                              (Auer et al. 2002)
- ucb_v:       mean + sqrt(2 V L / n) + 3 b L / n, L = zeta ln t, V the empirical variance
               (Audibert, Munos, Szepesvári 2009; b bounds the reward range)
- kl_ucb:      max{q : n kl(mean, q) <= ln t + c ln ln t}             (Garivier & Cappé 2011)
- moss:        mean + sqrt(max(ln(T / (K n)), 0) / n)                 (Audibert & Bubeck 2009)
- ts_beta:     argmax of Beta(1 + successes, 1 + failures) samples (Bernoulli rewards)
- ts_gaussian: argmax of N(mean, sigma^2 / n) samples (flat prior, after one pull per arm)
- eps_greedy:  uniform arm with probability eps_t, else the best mean; eps_t = epsilon, or
               min(1, c K / (d^2 t)) when c is given (Auer et al. 2002)
- etc:         m pulls of each arm round-robin, then commit to the best mean
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from domains.mab.kl import klucb_index
from domains.mab.window import PairWindow

POLICIES = ("ucb1", "ucb_v", "kl_ucb", "moss", "ts_beta", "ts_gaussian", "eps_greedy", "etc")
HORIZON_DEPENDENT = frozenset({"moss", "etc"})
# Relative cost of one step per (run, arm) pair, used to keep a spec within its time limit.
COST = {"ucb1": 1.0, "moss": 0.6, "etc": 0.3, "eps_greedy": 1.0, "ucb_v": 1.6, "ts_gaussian": 3.0,
        "ts_beta": 6.0, "kl_ucb": 25.0}


ONE = np.intp(1)


class Policy(ABC):
    """Base: owns the current feature values of every pair and advances pointers on a pull."""

    name = ""
    feature_names: tuple[str, ...] = ("mean", "count")
    needs_sq = False
    init_round = True  # pull every arm once (t = 1..K) before using the index

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        self.R, self.K, self.T = runs, arms, horizon
        self.params = params
        self.rng = rng
        self.row_base = np.arange(runs, dtype=np.intp) * arms
        self.scratch = np.empty(runs * arms)
        self.scratch2d = self.scratch.reshape(runs, arms)

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"mean": s / c, "count": c}

    def bind(self, window: PairWindow) -> None:
        self.ptr = window.ptr
        # Current feature values of every pair, refreshed from the window on each pull.
        self._pairs = []
        for name in self.feature_names:
            cur = window.flat[name][window.ptr]
            setattr(self, name, cur)
            self._pairs.append((cur, window.flat[name]))

    def _flat(self, arms: np.ndarray) -> np.ndarray:
        return np.add(arms, self.row_base, out=arms)

    def pull(self, flat: np.ndarray) -> None:
        p = self.ptr[flat]
        p += ONE
        self.ptr[flat] = p
        for cur, table in self._pairs:
            cur[flat] = table[p]

    @abstractmethod
    def choose(self, t: int) -> np.ndarray:
        """Flat (run * K + arm) indices of the arms pulled at time t, one per run."""

    def step(self, t: int) -> None:
        self.pull(self.choose(t))


class UCB1(Policy):
    name = "ucb1"
    feature_names = ("mean", "sqrt_count")

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"mean": s / c, "sqrt_count": np.sqrt(c)}

    def choose(self, t: int) -> np.ndarray:
        # sqrt(2 ln t) / sqrt(n): one division per step instead of a division and a square root.
        idx = self.scratch
        np.divide(math.sqrt(2.0 * math.log(t)), self.sqrt_count, out=idx)
        np.add(idx, self.mean, out=idx)
        return self._flat(self.scratch2d.argmax(1))


class UCBV(Policy):
    name = "ucb_v"
    feature_names = ("mean", "var", "count")
    needs_sq = True

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        mean = s / c
        return {"mean": mean, "var": np.maximum(q / c - mean * mean, 0.0), "count": c}

    def choose(self, t: int) -> np.ndarray:
        level = float(self.params.get("zeta", 1.2)) * math.log(t)
        b = float(self.params.get("b", 1.0))
        idx = self.scratch
        extra = getattr(self, "_extra", None)
        if extra is None:
            extra = self._extra = np.empty_like(idx)
        np.multiply(self.var, 2.0 * level, out=idx)
        np.divide(idx, self.count, out=idx)
        np.sqrt(idx, out=idx)
        np.divide(3.0 * b * level, self.count, out=extra)
        np.add(idx, extra, out=idx)
        np.add(idx, self.mean, out=idx)
        return self._flat(self.scratch2d.argmax(1))


class KLUCB(Policy):
    name = "kl_ucb"

    def choose(self, t: int) -> np.ndarray:
        c = float(self.params.get("c", 0.0))
        level = math.log(t) + (c * math.log(math.log(t)) if c and t > math.e else 0.0)
        self.scratch[:] = klucb_index(self.mean, self.count, level)
        return self._flat(self.scratch2d.argmax(1))


class MOSS(Policy):
    name = "moss"
    feature_names = ("index",)

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        super().__init__(runs, arms, horizon, params, rng)
        ratio = horizon / arms

        def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
            bonus = np.sqrt(np.maximum(np.log(ratio / c), 0.0) / c)
            return {"index": s / c + bonus}

        self.features = features  # the index depends on T and K, so it is bound per instance

    def choose(self, t: int) -> np.ndarray:
        return self._flat(self.index.reshape(self.R, self.K).argmax(1))


class TSBeta(Policy):
    name = "ts_beta"
    feature_names = ("alpha", "beta")
    init_round = False

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"alpha": 1.0 + s, "beta": 1.0 + c - s}

    def bind(self, window: PairWindow) -> None:
        super().bind(window)
        # alpha and beta side by side so one gamma call draws both halves of every Beta
        # sample, Beta(a, b) = G_a / (G_a + G_b).
        P = self.R * self.K
        self.shapes = np.concatenate([self.alpha, self.beta])
        self.alpha, self.beta = self.shapes[:P], self.shapes[P:]
        self._pairs = [(self.alpha, window.flat["alpha"]), (self.beta, window.flat["beta"])]

    def choose(self, t: int) -> np.ndarray:
        g = self.rng.standard_gamma(self.shapes)
        P = self.R * self.K
        np.add(g[:P], g[P:], out=self.scratch)
        np.divide(g[:P], self.scratch, out=self.scratch)
        return self._flat(self.scratch2d.argmax(1))


class TSGaussian(Policy):
    name = "ts_gaussian"

    def choose(self, t: int) -> np.ndarray:
        sigma = float(self.params.get("sigma", 1.0))
        z = self.rng.standard_normal(self.R * self.K)
        idx = self.scratch
        np.sqrt(self.count, out=idx)
        np.divide(z, idx, out=idx)
        np.multiply(idx, sigma, out=idx)
        np.add(idx, self.mean, out=idx)
        return self._flat(self.scratch2d.argmax(1))


class EpsGreedy(Policy):
    name = "eps_greedy"
    feature_names = ("mean",)

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"mean": s / c}

    def epsilon(self, t: int) -> float:
        if self.params.get("c") is not None:
            c, d = float(self.params["c"]), float(self.params.get("d", 0.1))
            return min(1.0, c * self.K / (d * d * t))
        return float(self.params.get("epsilon", 0.1))

    def choose(self, t: int) -> np.ndarray:
        greedy = self.mean.reshape(self.R, self.K).argmax(1)
        explore = self.rng.random(self.R) < self.epsilon(t)
        if explore.any():
            greedy[explore] = self.rng.integers(self.K, size=int(explore.sum()))
        return self._flat(greedy)


class ExploreThenCommit(Policy):
    name = "etc"
    feature_names = ("mean",)
    features = staticmethod(EpsGreedy.features)
    init_round = False

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        super().__init__(runs, arms, horizon, params, rng)
        self.m = max(1, int(params.get("m", 1)))
        self.committed: np.ndarray | None = None

    def choose(self, t: int) -> np.ndarray:
        if t <= self.m * self.K:
            return self.row_base + (t - 1) % self.K
        if self.committed is None:
            self.committed = self._flat(self.mean.reshape(self.R, self.K).argmax(1))
        return self.committed


REGISTRY: dict[str, type[Policy]] = {
    cls.name: cls for cls in (UCB1, UCBV, KLUCB, MOSS, TSBeta, TSGaussian, EpsGreedy, ExploreThenCommit)
}


def etc_default_m(horizon: int, min_gap: float) -> int:
    """m = max(1, ceil(4 / gap^2 * ln(T gap^2 / 4))): the two-arm tuning of Lattimore &
    Szepesvári (2020, ch. 6), used when a spec does not give m."""
    if min_gap <= 0:
        return 1
    inner = horizon * min_gap * min_gap / 4.0
    return max(1, math.ceil(4.0 / (min_gap * min_gap) * math.log(inner))) if inner > 1 else 1


def make_policy(
    name: str, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator
) -> Policy:
    try:
        cls = REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}") from None
    return cls(runs, arms, horizon, params, rng)
