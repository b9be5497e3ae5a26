"""Asymptotically optimal index policies beyond Bernoulli KL-UCB, vectorised over runs.

- bayes_ucb:       the 1 - 1/(t (ln T)^c) quantile of the Beta(1 + successes, 1 + failures)
                   posterior (Kaufmann, Cappé & Garivier 2012; c = 0 as in their experiments);
                   Bernoulli rewards; no initial round (the prior handles unpulled arms).
- kl_ucb_gaussian: max{q : n (q - mean)^2 / (2 sigma^2) <= ln t + c ln ln t}
                   = mean + sigma sqrt(2 (ln t + c ln ln t) / n)
- kl_ucb_exp:      the same with the KL divergence of exponential laws, mu/q - 1 - ln(mu/q)
- kl_ucb_poisson:  the same with the Poisson KL divergence, q - mu + mu ln(mu/q)
                   (Cappé, Garivier, Maillard, Munos & Stoltz 2013, KL-UCB for one-parameter
                   exponential families)
- imed:            pull argmin_i n_i KL(mean_i, max_j mean_j) + ln n_i (Honda & Takemura 2015,
                   with the KL divergence of the reward family: Bernoulli, Gaussian, exponential
                   or Poisson)
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betaincinv

from domains.mab.kl import (
    kl_family,
    klucb_exponential_index,
    klucb_gaussian_index,
    klucb_poisson_index,
)
from domains.mab.policies_base import FloatArray, Policy


def klucb_level(t: int, c: float) -> float:
    """ln t + c ln ln t (the c term only once ln ln t is defined and positive)."""
    return math.log(t) + (c * math.log(math.log(t)) if c and t > math.e else 0.0)


class BayesUCB(Policy):
    name = "bayes_ucb"
    feature_names = ("alpha", "beta")
    init_round = False
    alpha: FloatArray
    beta: FloatArray

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"alpha": 1.0 + s, "beta": 1.0 + c - s}

    def choose(self, t: int) -> np.ndarray:
        c = float(self.params.get("c", 0.0))
        level = 1.0 - 1.0 / (t * math.log(self.T) ** c) if c and self.T > 1 else 1.0 - 1.0 / t
        self.scratch[:] = betaincinv(self.alpha, self.beta, level)
        return self._flat(self.scratch2d.argmax(1))


class KLUCBGaussian(Policy):
    name = "kl_ucb_gaussian"
    mean: FloatArray
    count: FloatArray

    def choose(self, t: int) -> np.ndarray:
        level = klucb_level(t, float(self.params.get("c", 0.0)))
        self.scratch[:] = klucb_gaussian_index(self.mean, self.count, level, float(self.params.get("sigma", 1.0)))
        return self._flat(self.scratch2d.argmax(1))


class KLUCBExponential(Policy):
    name = "kl_ucb_exp"
    mean: FloatArray
    count: FloatArray

    def choose(self, t: int) -> np.ndarray:
        level = klucb_level(t, float(self.params.get("c", 0.0)))
        self.scratch[:] = klucb_exponential_index(self.mean, self.count, level)
        return self._flat(self.scratch2d.argmax(1))


class KLUCBPoisson(Policy):
    name = "kl_ucb_poisson"
    mean: FloatArray
    count: FloatArray

    def choose(self, t: int) -> np.ndarray:
        level = klucb_level(t, float(self.params.get("c", 0.0)))
        self.scratch[:] = klucb_poisson_index(self.mean, self.count, level)
        return self._flat(self.scratch2d.argmax(1))


class IMED(Policy):
    name = "imed"
    feature_names = ("mean", "count", "log_count")
    mean: FloatArray
    count: FloatArray
    log_count: FloatArray

    @staticmethod
    def features(c: np.ndarray, s: np.ndarray, q: np.ndarray | None) -> dict[str, np.ndarray]:
        return {"mean": s / c, "count": c, "log_count": np.log(c)}

    def choose(self, t: int) -> np.ndarray:
        family = self.family.name if self.family is not None else "bernoulli"
        sigma = float(self.params.get("sigma", 1.0))
        mean = self.mean.reshape(self.R, self.K)
        best = mean.max(1, keepdims=True)
        kl = kl_family(mean, np.broadcast_to(best, mean.shape), family, sigma)
        kl = np.where(mean < best, kl, 0.0)  # KL_inf(nu_i, mu*) = 0 for the empirical leaders
        idx = self.scratch2d
        np.multiply(self.count.reshape(self.R, self.K), kl, out=idx)
        idx += self.log_count.reshape(self.R, self.K)
        return self._flat(idx.argmin(1))
