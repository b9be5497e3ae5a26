"""Bernoulli Thompson sampling that draws only the Beta variates that can decide the argmax.

Exactness. At step t Thompson sampling draws X_i ~ Beta(a_i, b_i) for every arm of a run and
pulls the argmax. Represent each draw by inverse transform, X_i = Q_i(1 - U_i) with U_i uniform
(Q_i the quantile function): then X_i > s exactly when U_i < p_i = P(X_i > s), and given that,
X_i = Q_i(1 - U_i) with U_i uniform on (0, p_i). For a threshold s_r per run, a pair needs its
value only when it exceeds s_r (an "event", probability p_i per step) or when no value of its
run exceeds s_r (then every value is drawn conditioned on being below s_r). Events of a pair
with fixed posterior form a Bernoulli process, drawn as geometric gaps for a block of steps at
once. Pairs whose p_i is large (the run's most-pulled arm, whose value is wanted at most steps,
and close contenders), and pairs pulled during the block (their posterior changed), are drawn
directly every step as G_a / (G_a + G_b). The values this produces have, step by step, exactly
the joint law of K independent posterior draws, so the pulled arm has exactly Thompson
sampling's law; only the use of the random numbers differs from drawing all K every step.

Cost. s_r lies THRESHOLD_SD posterior standard deviations below the leader's mean. In the
benchmark workload (K = 10, T = 10,000, R = 100) a step then draws about 1.5 pairs per run
directly instead of 10, with about 2.5 exceedance events across the 100 runs, and a run falls
below its threshold about once in 2,000 steps. The knobs change the speed only, never the law
(tests/unit/mab/test_mab_thompson.py checks it against the exact law of Thompson sampling).
"""

from __future__ import annotations

import numpy as np
from scipy import special

BLOCK_ROWS = 64  # steps per block: thresholds, contenders and event times are set per block
DIRECT_P = 0.05  # a pair exceeding the threshold this often is drawn directly every step
THRESHOLD_SD = 3.5  # the threshold: the leader's posterior mean minus this many s.d.
BELOW = -1.0  # the value of a pair known only to lie below its run's threshold


class LazyBetaThompson:
    """Per step, the arm of each run with the largest posterior draw (alpha, beta: the current
    posterior parameters of every (run, arm) pair, updated in place by the policy)."""

    def __init__(
        self,
        rng: np.random.Generator,
        alpha: np.ndarray,
        beta: np.ndarray,
        arms: int,
        rows: int = BLOCK_ROWS,
        direct_p: float = DIRECT_P,
        threshold_sd: float = THRESHOLD_SD,
    ) -> None:
        self.rng, self.alpha, self.beta, self.K = rng, alpha, beta, arms
        self.P = alpha.size
        self.R = self.P // arms
        self.rows, self.direct_p, self.threshold_sd = max(1, rows), direct_p, threshold_sd
        self.row_base = np.arange(self.R, dtype=np.intp) * arms
        self.row = np.empty(self.P)
        self.direct = np.zeros(self.P, dtype=bool)
        self.k = self.rows  # step within the block; rows = the block is used up

    # -- block set-up -------------------------------------------------------------------------
    def _new_block(self) -> None:
        a, b = self.alpha, self.beta
        n = (a + b).reshape(self.R, self.K)
        leaders = n.argmax(1) + self.row_base
        m = a[leaders] / (a[leaders] + b[leaders])
        sd = np.sqrt(m * (1.0 - m) / (a[leaders] + b[leaders] + 1.0))
        self.s = np.clip(m - self.threshold_sd * sd, 0.0, 1.0)  # per run
        s_pair = np.repeat(self.s, self.K)
        # P(X > s) for X ~ Beta(a, b) is P(1 - X < 1 - s) with 1 - X ~ Beta(b, a): no cancellation
        self.p = special.betainc(b, a, 1.0 - s_pair)
        self.direct[:] = self.p >= self.direct_p
        self.direct[leaders] = True
        self.direct_idx = np.flatnonzero(self.direct)
        self.shape_idx = np.concatenate([self.direct_idx, self.direct_idx + self.P])
        lazy = np.flatnonzero(~self.direct)
        self._events(lazy, self.p[lazy])
        self.base = np.where(self.direct, 0.0, BELOW)
        self.k = 0

    def _events(self, lazy: np.ndarray, p: np.ndarray) -> None:
        """Steps (0-based, within the block) at which each lazy pair exceeds its threshold, and
        its value there, sorted by step."""
        steps, pairs = [], []
        alive = p > 0.0
        idx, q = lazy[alive], p[alive]
        pos = self.rng.geometric(q) - 1 if q.size else np.empty(0, dtype=np.int64)
        while idx.size:
            hit = pos < self.rows
            idx, q, pos = idx[hit], q[hit], pos[hit]
            steps.append(pos)
            pairs.append(idx)
            if idx.size:
                pos = pos + self.rng.geometric(q)
        step = np.concatenate(steps) if steps else np.empty(0, dtype=np.int64)
        pair = np.concatenate(pairs) if pairs else np.empty(0, dtype=np.intp)
        order = np.argsort(step, kind="stable")
        step, pair = step[order], pair[order]
        # the value given an exceedance: U uniform on (0, p), X = Q(1 - U) = betainccinv(a, b, U)
        u = self.rng.random(pair.size) * self.p[pair]
        self.ev_pair = pair
        self.ev_val = special.betainccinv(self.alpha[pair], self.beta[pair], u)
        self.ev_bounds = np.searchsorted(step, np.arange(self.rows + 1)).tolist()

    # -- one step -----------------------------------------------------------------------------
    def choose(self, shapes: np.ndarray) -> np.ndarray:
        """Flat indices of the chosen pairs; `shapes` is [alpha..., beta...] of every pair."""
        if self.k == self.rows:
            self._new_block()
        row = self.row
        np.copyto(row, self.base)
        lo, hi = self.ev_bounds[self.k], self.ev_bounds[self.k + 1]
        if hi > lo:
            row[self.ev_pair[lo:hi]] = self.ev_val[lo:hi]
        self.k += 1
        d = self.direct_idx
        n = d.size
        g = self.rng.standard_gamma(shapes[self.shape_idx])
        ga, gb = g[:n], g[n:]
        np.add(ga, gb, out=gb)
        row[d] = np.divide(ga, gb, out=ga)
        flat = row.reshape(self.R, self.K).argmax(1)
        flat += self.row_base
        low = row[flat] <= self.s
        if low.any():
            self._below(np.flatnonzero(low), flat)
        return flat

    def _below(self, runs: np.ndarray, flat: np.ndarray) -> None:
        """Runs with no value above their threshold: draw the lazy pairs' values conditioned on
        lying below it, U uniform on (p, 1), and take the argmax again."""
        pairs = (self.row_base[runs][:, None] + np.arange(self.K)).reshape(-1)
        pairs = pairs[self.row[pairs] == BELOW]
        p = self.p[pairs]
        u = p + self.rng.random(pairs.size) * (1.0 - p)
        self.row[pairs] = special.betainccinv(self.alpha[pairs], self.beta[pairs], u)
        flat[runs] = self.row.reshape(self.R, self.K)[runs].argmax(1) + self.row_base[runs]

    def pulled(self, flat: np.ndarray) -> None:
        """The posteriors of the pulled pairs changed: lazy ones are drawn directly from now on
        in this block (their events were set for the old posterior)."""
        known = self.direct[flat]
        if known.all():  # the usual case: only leaders and contenders were pulled
            return
        new = flat[~known]
        if new.size:
            self.direct[new] = True
            self.base[new] = 0.0
            self.direct_idx = np.concatenate([self.direct_idx, new])
            self.shape_idx = np.concatenate([self.direct_idx, self.direct_idx + self.P])
