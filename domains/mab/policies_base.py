"""The Policy base class: a vectorised policy over R runs sees an (R, K) matrix of per-arm
features kept by a PairWindow and returns one flat (run * K + arm) index per run each step.

`bind` sets one attribute per name in `feature_names` (the current value of that feature for
every pair); each policy declares those attributes with their type, so they are checked."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import numpy.typing as npt

from domains.mab.streams import Family
from domains.mab.window import PairWindow

ONE = np.intp(1)
FloatArray = npt.NDArray[np.float64]  # one value per (run, arm) pair, flat


class Policy(ABC):
    """Base: owns the current feature values of every pair and advances pointers on a pull."""

    name = ""
    feature_names: tuple[str, ...] = ("mean", "count")
    needs_sq = False
    needs_reward = False  # policies that update their own state with each pull's reward
    init_round = True  # pull every arm once (t = 1..K) before using the index
    family: Family | None = None  # reward family, set by make_policy (IMED needs its KL)
    kernel = "numpy"  # what runs the steps: "numba" when a compiled kernel does

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        self.R, self.K, self.T = runs, arms, horizon
        self.params = params
        self.rng = rng
        self.row_base = np.arange(runs, dtype=np.intp) * arms
        self.scratch = np.empty(runs * arms)
        self.scratch2d = self.scratch.reshape(runs, arms)

    def features(self, c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        """Feature values from pull counts c, reward sums s and squared sums q. A method, not a
        static function, because a feature may depend on the instance (MOSS's on T and K);
        most policies override it with a staticmethod."""
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

    def run(self, first: int, last: int) -> None:
        """Steps first..last (no window refill falls inside); a policy with a compiled kernel
        does them in one call."""
        step = self.step
        for t in range(first, last + 1):
            step(t)


class RewardPolicy(Policy):
    """A policy with its own per-run state, updated with the reward of every pull (sliding
    windows, discounting, importance weights, truncation). `observe` sees the flat indices
    pulled and their rewards; `t` is the current step (set by step)."""

    needs_reward = True
    init_round = False  # unpulled arms are handled by the index (infinite) instead
    feature_names: tuple[str, ...] = ("count",)
    count: FloatArray

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"count": c}

    t = 0

    def bind(self, window: PairWindow) -> None:
        super().bind(window)
        if window.flat_X is None:  # the simulator builds the window from needs_reward
            raise ValueError(f"{self.name} needs a window that keeps the rewards (needs_reward)")
        self.rewards: FloatArray = window.flat_X

    def pull(self, flat: np.ndarray) -> None:
        super().pull(flat)
        self.observe(flat, self.rewards[self.ptr[flat]])

    @abstractmethod
    def observe(self, flat: np.ndarray, x: np.ndarray) -> None:
        """Update the state with reward x[r] of arm flat[r] in every run r."""

    def step(self, t: int) -> None:
        self.t = t
        self.pull(self.choose(t))
