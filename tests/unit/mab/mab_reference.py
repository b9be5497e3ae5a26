"""An independent plain-Python bandit simulator: one run, one step, one arm at a time.

Rewards follow the documented stream definition (docs/mab.md): SplitMix64 of the pair key plus
the pull number, written here with Python integers instead of numpy arrays. Index formulas are
written as in the papers; where a formula has two equal readings the association chosen matches
the vectorised code so results can be compared bit for bit.
"""

from __future__ import annotations

import math
import random

from domains.mab.streams import seed_key

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
ARM_GAMMA = 0xD1B54A32D192ED03


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def pair_key(key: int, run: int, arm: int) -> int:
    k = mix64((key + (run + 1) * GOLDEN) & M64)
    return mix64((k + (arm + 1) * ARM_GAMMA) & M64)


def uniform(pk: int, counter: int) -> float:
    return (mix64((pk + counter * GOLDEN) & M64) >> 11) * 2.0**-53


def reward(family: str, mean: float, pk: int, j: int, sigma: float = 1.0, alpha: float = 2.5) -> float:
    """The j-th reward (j >= 1) of the pair with key pk."""
    if family == "bernoulli":
        return 1.0 if uniform(pk, j) < mean else 0.0
    if family == "gaussian":
        u1 = 1.0 - uniform(pk, 2 * j - 1)
        u2 = uniform(pk, 2 * j)
        return mean + sigma * (math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2))
    x_m = mean * (alpha - 1.0) / alpha
    return x_m * (1.0 - uniform(pk, j)) ** (-1.0 / alpha)


def kl(p: float, q: float) -> float:
    q = min(max(q, 1e-15), 1 - 1e-15)
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


def klucb_bisect(mean: float, n: float, level: float, iters: int = 60) -> float:
    d = level / n
    lo, hi = mean, 1.0
    for _ in range(iters):
        mid = (lo + hi) / 2
        if kl(mean, mid) <= d:
            lo = mid
        else:
            hi = mid
    return lo


def argmax(values: list[float]) -> int:
    best = 0
    for i, v in enumerate(values):
        if v > values[best]:
            best = i
    return best


def run_reference(
    policy: str, family: str, means: list[float], horizon: int, runs: int, seed: int,
    params: dict | None = None, sigma: float = 1.0, rng_seed: int = 12345,
) -> tuple[list[float], list[list[int]]]:
    """(final pseudo-regret of each run, pull counts of each run)."""
    params = params or {}
    K = len(means)
    best = max(means)
    key = seed_key(seed, 0, 0)
    rng = random.Random(rng_seed)
    regrets, all_counts = [], []
    for r in range(runs):
        keys = [pair_key(key, r, a) for a in range(K)]
        n, s, q = [0] * K, [0.0] * K, [0.0] * K
        committed = None
        for t in range(1, horizon + 1):
            if policy in ("ts_beta", "etc") or min(n) > 0:
                a = choose(policy, t, n, s, q, K, horizon, params, rng, sigma)
                if policy == "etc" and t > params["m"] * K:
                    committed = committed if committed is not None else argmax([s[i] / n[i] for i in range(K)])
                    a = committed
            else:
                a = n.index(0)
            n[a] += 1
            x = reward(family, means[a], keys[a], n[a], sigma)
            s[a] += x
            q[a] += x * x
        regrets.append(sum((best - means[a]) * n[a] for a in range(K)))
        all_counts.append(n)
    return regrets, all_counts


def choose(policy, t, n, s, q, K, T, params, rng, sigma):
    mean = [s[i] / n[i] if n[i] else 0.0 for i in range(K)]
    if policy == "ucb1":
        return argmax([mean[i] + math.sqrt(2 * math.log(t)) / math.sqrt(n[i]) for i in range(K)])
    if policy == "ucb_v":
        level, b = params.get("zeta", 1.2) * math.log(t), params.get("b", 1.0)
        idx = []
        for i in range(K):
            var = max(q[i] / n[i] - mean[i] * mean[i], 0.0)
            idx.append((math.sqrt(var * (2 * level) / n[i]) + (3 * b * level) / n[i]) + mean[i])
        return argmax(idx)
    if policy == "moss":
        return argmax([mean[i] + math.sqrt(max(math.log((T / K) / n[i]), 0.0) / n[i]) for i in range(K)])
    if policy == "kl_ucb":
        return argmax([klucb_bisect(mean[i], n[i], math.log(t)) for i in range(K)])
    if policy == "ts_beta":
        return argmax([rng.betavariate(1 + s[i], 1 + n[i] - s[i]) for i in range(K)])
    if policy == "ts_gaussian":
        return argmax([mean[i] + sigma * rng.gauss(0, 1) / math.sqrt(n[i]) for i in range(K)])
    if policy == "eps_greedy":
        if rng.random() < params.get("epsilon", 0.1):
            return rng.randrange(K)
        return argmax(mean)
    if policy == "etc":
        return (t - 1) % K
    raise ValueError(policy)
