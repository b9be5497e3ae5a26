"""Kullback-Leibler divergences and the vectorised KL-UCB index.

KL-UCB (Garivier & Cappé 2011) for Bernoulli rewards:
    index = max { q in [mean, 1] : n * kl(mean, q) <= log t + c log log t }.
q -> kl(p, q) is convex and increasing on [p, 1), and Pinsker's inequality kl >= 2 (q - p)^2 puts
the root below p + sqrt(d / 2) (d = level / n); dropping the term p log(1/q) >= 0 puts it below
1 - (1 - p) exp(-(d - p log p) / (1 - p)), which is the tighter of the two near q = 1. Newton's
method started from the smaller upper bound decreases monotonically onto the root, so a handful
of vectorised iterations replace a scalar bisection per arm.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-15


def kl_bernoulli(p: np.ndarray | float, q: np.ndarray | float) -> np.ndarray:
    """kl(Ber(p), Ber(q)) with the conventions 0 log 0 = 0; q is clipped into (0, 1)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    q = np.clip(np.asarray(q, dtype=np.float64), EPS, 1.0 - EPS)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / q), 0.0)
        b = np.where(p < 1, (1.0 - p) * np.log((1.0 - p) / (1.0 - q)), 0.0)
    return a + b


def kl_gaussian(mu1: np.ndarray | float, mu2: np.ndarray | float, sigma: float = 1.0) -> np.ndarray:
    """kl(N(mu1, sigma^2), N(mu2, sigma^2)) = (mu1 - mu2)^2 / (2 sigma^2)."""
    diff = np.asarray(mu1, dtype=np.float64) - np.asarray(mu2, dtype=np.float64)
    return diff * diff / (2.0 * sigma * sigma)


def klucb_index(
    mean: np.ndarray, count: np.ndarray, level: float | np.ndarray, tol: float = 1e-12, max_iter: int = 60
) -> np.ndarray:
    """Largest q in [mean, 1] with count * kl(mean, q) <= level, elementwise (count > 0)."""
    p = np.clip(np.asarray(mean, dtype=np.float64), 0.0, 1.0)
    d = np.asarray(level, dtype=np.float64) / np.asarray(count, dtype=np.float64)
    d = np.broadcast_to(np.maximum(d, 0.0), p.shape)
    hi = 1.0 - EPS
    inner = (p > 0) & (p < 1) & (d > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log(p), 0.0)
        q_tail = np.where(inner, 1.0 - (1.0 - p) * np.exp(-(d - plogp) / (1.0 - p)), hi)
    q = np.minimum(np.minimum(p + np.sqrt(d / 2.0), q_tail), hi)
    q = np.maximum(q, p)
    for _ in range(max_iter):
        f = kl_bernoulli(p, q) - d
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = (q - p) / (q * (1.0 - q))
            step = np.where(inner & (slope > 0), f / slope, 0.0)
        new_q = np.clip(q - step, p, hi)
        moved = np.abs(new_q - q)
        q = new_q
        if not np.any(moved > tol):
            break
    # Closed forms where Newton has nothing to do: p = 0 gives kl = -log(1 - q).
    q = np.where((p <= 0) & (d > 0), -np.expm1(-d), q)
    q = np.where(p >= 1, 1.0, q)
    return np.where(d > 0, q, p)
