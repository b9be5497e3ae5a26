"""Policies that keep their own per-run state, updated with the reward of every pull.

- robust_ucb: Robust UCB with the truncated empirical mean (Bubeck, Cesa-Bianchi & Lugosi 2013,
              Lemma 1 and Proposition 1), for rewards with E|X|^(1+eps) <= u, eps in (0, 1]:
                  index = (1/n) sum_{s<=n} X_s 1{|X_s| <= (u s / L_t)^(1/(1+eps))}
                          + 4 u^(1/(1+eps)) (L_t / n)^(eps/(1+eps)),   L_t = ln(t^2) = 2 ln t.
              A sample is kept while L_t <= u s / |X_s|^(1+eps); L_t only grows, so each sample
              is dropped at most once, and only the few samples that will ever drop before the
              horizon are remembered: O(R K) memory and O(R) work a step.
- exp3:       exponential weights on importance-weighted loss estimates (losses 1 - reward),
              p_i proportional to exp(-eta L_i), L_i += (1 - X) / p_i for the pulled arm,
              eta = sqrt(2 ln K / (K T)) (Bubeck & Cesa-Bianchi 2012, Theorem 3.1).
- exp3_ix:    the same with implicit exploration, L_i += (1 - X) / (p_i + gamma), gamma = eta / 2
              (Neu 2015).
- sw_ucb:     sliding-window UCB (Garivier & Moulines 2011): over the last tau plays,
              mean_tau,i + B sqrt(xi ln(min(t, tau)) / N_tau,i); infinite when N_tau,i = 0.
- d_ucb:      discounted UCB (Garivier & Moulines 2011): N_i and S_i decay by gamma each step,
              S_i / N_i + 2 B sqrt(xi ln(sum_j N_j) / N_i).
Defaults for tau and gamma follow Garivier & Moulines' tuning for Upsilon breakpoints (the
instance's number of changes, at least 1): tau = 2 B sqrt(T ln T / Upsilon),
gamma = 1 - sqrt(Upsilon / T) / (4 B); xi = 0.6, B = 1.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from domains.mab.policies_base import RewardPolicy

MAX_RING_BYTES = 512 * 2**20  # sw_ucb's window of plays: R x tau (arm, reward) entries


class RobustUCB(RewardPolicy):
    name = "robust_ucb"
    init_round = True  # the index needs one sample per arm

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        super().__init__(runs, arms, horizon, params, rng)
        self.eps = float(params.get("eps", 1.0))
        self.u = float(params.get("u", 1.0))
        if not 0 < self.eps <= 1 or not self.u > 0:
            raise ValueError("robust_ucb needs 0 < eps <= 1 and u > 0")
        self.kept = np.zeros(runs * arms)  # sum of the samples still kept by the truncation
        self.final_level = 2.0 * math.log(max(horizon, 2))
        self.drop_pair = np.empty(0, dtype=np.intp)
        self.drop_value = np.empty(0)
        self.drop_level = np.empty(0)
        self.next_drop = math.inf

    def observe(self, flat: np.ndarray, x: np.ndarray) -> None:
        self.kept[flat] += x
        s = self.count[flat]
        with np.errstate(divide="ignore"):
            level = self.u * s / np.abs(x) ** (1.0 + self.eps)  # kept while L_t <= level
        will_drop = level < self.final_level
        if will_drop.any():
            self.drop_pair = np.concatenate([self.drop_pair, flat[will_drop]])
            self.drop_value = np.concatenate([self.drop_value, x[will_drop]])
            self.drop_level = np.concatenate([self.drop_level, level[will_drop]])
            self.next_drop = float(self.drop_level.min())

    def _truncate(self, level: float) -> None:
        gone = self.drop_level < level
        np.subtract.at(self.kept, self.drop_pair[gone], self.drop_value[gone])
        keep = ~gone
        self.drop_pair = self.drop_pair[keep]
        self.drop_value = self.drop_value[keep]
        self.drop_level = self.drop_level[keep]
        self.next_drop = float(self.drop_level.min()) if self.drop_level.size else math.inf

    def choose(self, t: int) -> np.ndarray:
        level = 2.0 * math.log(t)
        if self.next_drop < level:
            self._truncate(level)
        n = self.count
        idx = self.scratch
        np.divide(level, n, out=idx)
        np.power(idx, self.eps / (1.0 + self.eps), out=idx)
        idx *= 4.0 * self.u ** (1.0 / (1.0 + self.eps))
        idx += self.kept / n
        return self._flat(self.scratch2d.argmax(1))


class Exp3(RewardPolicy):
    name = "exp3"
    implicit = False

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        super().__init__(runs, arms, horizon, params, rng)
        self.eta = float(params.get("eta", math.sqrt(2.0 * math.log(arms) / (arms * horizon))))
        self.gamma = float(params.get("gamma", self.eta / 2.0 if self.implicit else 0.0))
        self.loss = np.zeros((runs, arms))  # importance-weighted loss estimates
        self.prob = np.full(runs * arms, 1.0 / arms)

    def choose(self, t: int) -> np.ndarray:
        w = self.loss.min(1, keepdims=True) - self.loss
        w *= self.eta
        np.exp(w, out=w)
        np.cumsum(w, axis=1, out=self.scratch2d)
        total = self.scratch2d[:, -1:].copy()
        np.divide(w, total, out=w)
        self.prob[:] = w.reshape(-1)
        u = self.rng.random((self.R, 1)) * total
        cum = self.scratch2d
        cum[:, -1] = np.inf  # rounding must never let u pass the last arm
        return self._flat((cum > u).argmax(1))

    def observe(self, flat: np.ndarray, x: np.ndarray) -> None:
        self.loss.reshape(-1)[flat] += (1.0 - x) / (self.prob[flat] + self.gamma)


class Exp3IX(Exp3):
    name = "exp3_ix"
    implicit = True


class SlidingWindowUCB(RewardPolicy):
    name = "sw_ucb"

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        super().__init__(runs, arms, horizon, params, rng)
        self.B = float(params.get("B", 1.0))
        self.xi = float(params.get("xi", 0.6))
        self.tau = max(1, int(params.get("tau", horizon)))
        self.n = np.zeros(runs * arms)
        self.s = np.zeros(runs * arms)
        self.ring = self.tau < horizon  # a window shorter than the horizon forgets
        if self.ring and runs * self.tau * 16 > MAX_RING_BYTES:
            raise ValueError(
                f"sw_ucb keeps the last tau = {self.tau} plays of each of {runs} runs "
                f"({runs * self.tau * 16 / 2**20:.0f} MB, limit {MAX_RING_BYTES // 2**20} MB); "
                "lower tau or the number of runs"
            )
        if self.ring:
            self.ring_pair = np.zeros((self.tau, runs), dtype=np.intp)
            self.ring_x = np.zeros((self.tau, runs))

    def choose(self, t: int) -> np.ndarray:
        idx = self.scratch
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(self.B * math.sqrt(self.xi * math.log(min(t, self.tau))), np.sqrt(self.n), out=idx)
            idx += self.s / self.n
        idx[self.n == 0] = np.inf
        return self._flat(self.scratch2d.argmax(1))

    def observe(self, flat: np.ndarray, x: np.ndarray) -> None:
        if self.ring:
            slot = (self.t - 1) % self.tau
            if self.t > self.tau:  # the play of step t - tau leaves the window
                old = self.ring_pair[slot]
                self.n[old] -= 1.0
                self.s[old] -= self.ring_x[slot]
            self.ring_pair[slot] = flat
            self.ring_x[slot] = x
        self.n[flat] += 1.0
        self.s[flat] += x


class DiscountedUCB(RewardPolicy):
    name = "d_ucb"

    def __init__(self, runs: int, arms: int, horizon: int, params: dict[str, Any], rng: np.random.Generator):
        super().__init__(runs, arms, horizon, params, rng)
        self.B = float(params.get("B", 1.0))
        self.xi = float(params.get("xi", 0.6))
        self.gamma = float(params.get("gamma", 1.0 - 1.0 / (4.0 * math.sqrt(horizon))))
        self.n = np.zeros(runs * arms)
        self.s = np.zeros(runs * arms)

    def choose(self, t: int) -> np.ndarray:
        n2d = self.n.reshape(self.R, self.K)
        level = self.xi * np.log(np.maximum(n2d.sum(1, keepdims=True), 1.0))
        idx = self.scratch2d
        with np.errstate(divide="ignore", invalid="ignore"):
            bonus = 2.0 * self.B * np.sqrt(level / n2d)
            np.divide(self.s.reshape(self.R, self.K), n2d, out=idx)
            idx += bonus
        idx[n2d == 0] = np.inf
        return self._flat(idx.argmax(1))

    def observe(self, flat: np.ndarray, x: np.ndarray) -> None:
        self.n *= self.gamma
        self.s *= self.gamma
        self.n[flat] += 1.0
        self.s[flat] += x
