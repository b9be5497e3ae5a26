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
- etc:         m pulls of each arm round-robin, then commit to the best mean (default m: the
               minimiser of the K-arm ETC regret bound, etc_default_m)

More policies live beside this module: policies_kl.py (bayes_ucb, kl_ucb_gaussian, kl_ucb_exp,
kl_ucb_poisson, imed) and policies_stateful.py (robust_ucb, exp3, exp3_ix, sw_ucb, d_ucb);
policies_base.py has the Policy base classes. Which reward families each policy is defined for:
compat.py.
"""

from __future__ import annotations

import math
from typing import Any, Literal, get_args

import numpy as np

from domains.mab.kl import klucb_index
from domains.mab.policies_base import FloatArray, Policy
from domains.mab.policies_kl import IMED, BayesUCB, KLUCBExponential, KLUCBGaussian, KLUCBPoisson
from domains.mab.policies_stateful import DiscountedUCB, Exp3, Exp3IX, RobustUCB, SlidingWindowUCB
from domains.mab.thompson import LazyBetaThompson
from domains.mab.thompson_kernel import CompiledLazyThompson, compiled_available
from domains.mab.window import PairWindow

# The schema (spec.py) and the simulator offer exactly these policies: one list, typed.
PolicyName = Literal[
    "ucb1",
    "ucb_v",
    "kl_ucb",
    "moss",
    "ts_beta",
    "ts_gaussian",
    "eps_greedy",
    "etc",
    "bayes_ucb",
    "kl_ucb_gaussian",
    "kl_ucb_exp",
    "kl_ucb_poisson",
    "imed",
    "robust_ucb",
    "exp3",
    "exp3_ix",
    "sw_ucb",
    "d_ucb",
]
POLICIES: tuple[str, ...] = get_args(PolicyName)
# Policies whose behaviour depends on the horizon (a tuning from T): one run per horizon.
HORIZON_DEPENDENT = frozenset({"moss", "etc", "exp3", "exp3_ix", "sw_ucb", "d_ucb"})
# Relative cost of one step per (run, arm) pair, used to keep a spec within its time limit.
COST = {
    "ucb1": 1.0,
    "moss": 0.6,
    "etc": 0.3,
    "eps_greedy": 1.0,
    "ucb_v": 1.6,
    "ts_gaussian": 3.0,
    "ts_beta": 6.0,
    "kl_ucb": 25.0,
    "bayes_ucb": 30.0,
    "kl_ucb_gaussian": 1.5,
    "kl_ucb_exp": 12.0,
    "kl_ucb_poisson": 12.0,
    "imed": 6.0,
    "robust_ucb": 2.5,
    "exp3": 3.5,
    "exp3_ix": 3.5,
    "sw_ucb": 2.0,
    "d_ucb": 3.0,
}


class UCB1(Policy):
    name = "ucb1"
    feature_names = ("mean", "sqrt_count")
    mean: FloatArray
    sqrt_count: FloatArray

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
    mean: FloatArray
    var: FloatArray
    count: FloatArray

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
    mean: FloatArray
    count: FloatArray

    def choose(self, t: int) -> np.ndarray:
        c = float(self.params.get("c", 0.0))
        level = math.log(t) + (c * math.log(math.log(t)) if c and t > math.e else 0.0)
        self.scratch[:] = klucb_index(self.mean, self.count, level)
        return self._flat(self.scratch2d.argmax(1))


class MOSS(Policy):
    name = "moss"
    feature_names = ("index",)
    index: FloatArray

    def features(self, c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        # the index depends on T and K, so this one reads the instance
        ratio = self.T / self.K
        bonus = np.sqrt(np.maximum(np.log(ratio / c), 0.0) / c)
        return {"index": s / c + bonus}

    def choose(self, t: int) -> np.ndarray:
        return self._flat(self.index.reshape(self.R, self.K).argmax(1))


def beta_draws(rng: np.random.Generator, shapes: np.ndarray, gammas: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Exact Beta(a, b) variates, one per pair, as G_a / (G_a + G_b) with independent gammas
    (numpy's Marsaglia-Tsang sampler); shapes = [a..., b...], gammas a scratch of the same size."""
    g = rng.standard_gamma(shapes, out=gammas)
    P = out.size
    np.add(g[:P], g[P:], out=out)
    return np.divide(g[:P], out, out=out)


class TSBeta(Policy):
    name = "ts_beta"
    feature_names = ("alpha", "beta")
    init_round = False
    alpha: FloatArray
    beta: FloatArray

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
        self._gammas = np.empty(2 * P)
        # The lazy sampler (thompson.py) has the same law; its knobs change the speed only.
        knobs = {k: self.params[k] for k in ("rows", "direct_p", "threshold_sd") if k in self.params}
        if "rows" in knobs:
            knobs["rows"] = int(knobs["rows"])
        self._lazy: LazyBetaThompson | None = None
        self._compiled: CompiledLazyThompson | None = None
        if not self.params.get("lazy", 1):
            return
        if self.params.get("compiled", 1) and compiled_available():
            # same draws in the same order as the numpy path: only faster (thompson_kernel.py)
            self._compiled = CompiledLazyThompson(
                self.rng, self.shapes, self.K, window.ptr, window.flat["alpha"], window.flat["beta"], **knobs
            )
            self._lazy = self._compiled
            self.kernel = "numba"
        else:
            self._lazy = LazyBetaThompson(self.rng, self.alpha, self.beta, self.K, **knobs)

    def choose(self, t: int) -> np.ndarray:
        if self._lazy is not None:
            return self._lazy.choose(self.shapes)
        beta_draws(self.rng, self.shapes, self._gammas, self.scratch)
        return self._flat(self.scratch2d.argmax(1))

    def step(self, t: int) -> None:
        if self._compiled is not None:  # its state lives in the kernel's arrays
            self._compiled.run(1)
            return
        flat = self.choose(t)
        self.pull(flat)
        if self._lazy is not None:
            self._lazy.pulled(flat)

    def run(self, first: int, last: int) -> None:
        if self._compiled is not None:
            self._compiled.run(last - first + 1)
        else:
            super().run(first, last)


class TSGaussian(Policy):
    name = "ts_gaussian"
    mean: FloatArray
    count: FloatArray

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
    mean: FloatArray

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
    mean: FloatArray
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
    cls.name: cls
    for cls in (
        UCB1,
        UCBV,
        KLUCB,
        MOSS,
        TSBeta,
        TSGaussian,
        EpsGreedy,
        ExploreThenCommit,
        BayesUCB,
        KLUCBGaussian,
        KLUCBExponential,
        KLUCBPoisson,
        IMED,
        RobustUCB,
        Exp3,
        Exp3IX,
        SlidingWindowUCB,
        DiscountedUCB,
    )
}
if tuple(REGISTRY) != POLICIES:  # the spec schema and the docs list POLICIES
    raise ImportError("policies.REGISTRY is out of date with POLICIES")


def etc_regret_bound(m: int | np.ndarray, horizon: int, gaps: np.ndarray, sigma: float = 1.0) -> np.ndarray:
    """Regret bound of explore-then-commit with m pulls per arm (Lattimore & Szepesvari 2020,
    Theorem 6.1, sigma-sub-Gaussian rewards): m sum_i Delta_i + max(T - m K, 0) sum_i Delta_i
    exp(-m Delta_i^2 / (4 sigma^2))."""
    g = np.asarray(gaps, dtype=np.float64)
    mm = np.asarray(m, dtype=np.float64)[..., None]
    commit = np.maximum(horizon - mm[..., 0] * g.size, 0.0)
    return mm[..., 0] * g.sum() + commit * (g * np.exp(-mm * g * g / (4.0 * sigma * sigma))).sum(-1)


def etc_default_m(horizon: int, gaps: np.ndarray | list[float], sigma: float = 1.0) -> int:
    """The m in [1, T / K] that minimises etc_regret_bound on the instance: with two arms this
    is close to the textbook max(1, ceil(4 sigma^2 / Delta^2 ln(T Delta^2 / (4 sigma^2)))), and
    with K arms it accounts for every gap and for the K m steps the exploration takes (the
    two-arm formula with the smallest gap can exceed T / K and then never commits)."""
    g = np.asarray(gaps, dtype=np.float64)
    K = g.size
    if not np.any(g > 0) or K < 1:
        return 1
    top = max(1, horizon // K)
    grid = np.unique(np.round(np.geomspace(1, top, min(top, 400))).astype(np.int64))
    best = int(grid[np.argmin(etc_regret_bound(grid, horizon, g, sigma))])
    lo, hi = max(1, best // 2), min(top, best * 2 + 1)  # refine between the grid's neighbours
    fine = np.unique(np.round(np.linspace(lo, hi, min(hi - lo + 1, 2000))).astype(np.int64))
    return int(fine[np.argmin(etc_regret_bound(fine, horizon, g, sigma))])


def etc_warning(m: int, arms: int, horizon: int) -> str | None:
    if m * arms >= horizon:
        return (
            f"etc explores for m K = {m} x {arms} = {m * arms} >= T = {horizon} steps: it never commits "
            f"and its regret is that of uniform round-robin (linear in T)"
        )
    return None


def make_policy(
    name: str,
    runs: int,
    arms: int,
    horizon: int,
    params: dict[str, Any],
    rng: np.random.Generator,
    family: Any = None,
) -> Policy:
    try:
        cls = REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; known: {', '.join(POLICIES)}") from None
    policy = cls(runs, arms, horizon, params, rng)
    policy.family = family
    return policy
