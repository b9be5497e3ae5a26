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
    """kl(Ber(p), Ber(q)) with 0 log 0 = 0; exact at the edges: infinite when q is 0 or 1 and
    p differs from it (Ber(1) is a point mass, so no other law is absolutely continuous to it)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0)
    q = np.clip(np.asarray(q, dtype=np.float64), 0.0, 1.0)
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


def kl_exponential(mu1: np.ndarray | float, mu2: np.ndarray | float) -> np.ndarray:
    """kl(Exp with mean mu1, Exp with mean mu2) = mu1/mu2 - 1 - log(mu1/mu2) (means > 0)."""
    r = np.asarray(mu1, dtype=np.float64) / np.asarray(mu2, dtype=np.float64)
    return r - 1.0 - np.log(r)


def kl_poisson(lam1: np.ndarray | float, lam2: np.ndarray | float) -> np.ndarray:
    """kl(Poisson(lam1), Poisson(lam2)) = lam2 - lam1 + lam1 log(lam1 / lam2), 0 log 0 = 0;
    infinite when lam2 = 0 < lam1."""
    a = np.asarray(lam1, dtype=np.float64)
    b = np.asarray(lam2, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(a > 0, a * np.log(a / b), 0.0)
    return b - a + term


def kl_family(p: np.ndarray | float, q: np.ndarray | float, family: str, sigma: float = 1.0) -> np.ndarray:
    """KL divergence between two laws of a one-parameter family, given by their means."""
    if family == "bernoulli":
        return kl_bernoulli(p, q)
    if family == "gaussian":
        return kl_gaussian(p, q, sigma)
    if family == "exponential":
        return kl_exponential(p, q)
    if family == "poisson":
        return kl_poisson(p, q)
    raise ValueError(f"no closed-form KL for family {family!r} (bernoulli, gaussian, exponential, poisson)")


def klucb_gaussian_index(mean: np.ndarray, count: np.ndarray, level: float, sigma: float = 1.0) -> np.ndarray:
    """max{q : count (q - mean)^2 / (2 sigma^2) <= level} = mean + sigma sqrt(2 level / count)."""
    return mean + sigma * np.sqrt(2.0 * max(level, 0.0) / count)


def klucb_exponential_index(mean: np.ndarray, count: np.ndarray, level: float, iters: int = 50) -> np.ndarray:
    """max{q >= mean : count kl_exp(mean, q) <= level}. With x = mean / q in (0, 1] this is the
    root of g(x) = x - 1 - log x - d (d = level / count), convex and decreasing; Newton's method
    from below the root increases monotonically onto it. Start: the larger of exp(-1 - d) and
    1 - sqrt(2 d), both below the root (-z - log(1 - z) >= z^2 / 2)."""
    d = np.maximum(level, 0.0) / np.asarray(count, dtype=np.float64)
    x = np.maximum(np.exp(-1.0 - d), 1.0 - np.sqrt(2.0 * d))
    for _ in range(iters):
        g = x - 1.0 - np.log(x) - d
        with np.errstate(divide="ignore", invalid="ignore"):
            step = g / (1.0 - 1.0 / x)  # g'(x) = 1 - 1/x < 0 for x < 1
        new_x = np.where(x < 1.0, np.minimum(x - step, 1.0), 1.0)
        if np.all(np.abs(new_x - x) <= 1e-12 * new_x):
            x = new_x
            break
        x = new_x
    return np.asarray(mean, dtype=np.float64) / x


def klucb_poisson_index(mean: np.ndarray, count: np.ndarray, level: float, iters: int = 60) -> np.ndarray:
    """max{q >= mean : count kl_poisson(mean, q) <= level}. For mean > 0, with y = q / mean >= 1
    it is the root of h(y) = y - 1 - log y - c (c = level / (count mean)), convex and increasing;
    Newton's method from y0 = 1 + c + sqrt(c^2 + 2 c) >= root (x - log(1 + x) >= x^2 / (2 (1 + x)))
    decreases monotonically onto it. For mean = 0 the index is level / count (kl(0, q) = q)."""
    m = np.asarray(mean, dtype=np.float64)
    d = np.maximum(level, 0.0) / np.asarray(count, dtype=np.float64)
    pos = m > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(pos, d / np.where(pos, m, 1.0), 0.0)
    y = 1.0 + c + np.sqrt(c * c + 2.0 * c)
    for _ in range(iters):
        h = y - 1.0 - np.log(y) - c
        with np.errstate(divide="ignore", invalid="ignore"):
            new_y = np.where(y > 1.0, np.maximum(y - h / (1.0 - 1.0 / y), 1.0), 1.0)
        if np.all(np.abs(new_y - y) <= 1e-12 * new_y):
            y = new_y
            break
        y = new_y
    return np.where(pos, m * y, d)
