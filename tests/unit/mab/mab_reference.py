"""An independent plain-Python bandit simulator: one run, one step, one arm at a time.

Rewards follow the documented stream definition (docs/mab.md): SplitMix64 of the pair key plus
the pull number, written here with Python integers instead of numpy arrays. Index formulas are
written as in the papers; where a formula has two equal readings the association chosen matches
the vectorised code so results can be compared bit for bit.
"""

from __future__ import annotations

import math
import random

from scipy.special import betainc, pdtr

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
    if family == "exponential":
        return -mean * math.log1p(-uniform(pk, j))
    if family == "poisson":  # inverse CDF: the number of k with F(k) <= u
        u, k = uniform(pk, j), 0
        while float(pdtr(k, mean)) <= u:
            k += 1
        return float(k)
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
    policy: str,
    family: str,
    means: list[float],
    horizon: int,
    runs: int,
    seed: int,
    params: dict | None = None,
    sigma: float = 1.0,
    rng_seed: int = 12345,
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


# --- the policies of issue 21, written from their papers' formulas, one arm at a time ----------


def kl_family(p: float, q: float, family: str, sigma: float = 1.0) -> float:
    if family == "bernoulli":
        if q <= 0.0 or q >= 1.0:
            return 0.0 if p == q else math.inf
        return kl(p, q)
    if family == "gaussian":
        return (p - q) ** 2 / (2 * sigma * sigma)
    if family == "exponential":
        return p / q - 1 - math.log(p / q)
    if family == "poisson":
        return q - p + (p * math.log(p / q) if p > 0 else 0.0)
    raise ValueError(family)


def kl_upper(mean: float, n: float, level: float, family: str, iters: int = 200) -> float:
    """max{q >= mean : n kl(mean, q) <= level} by doubling then bisection."""
    d = level / n
    lo, width = mean, max(abs(mean), 1.0)
    hi = mean + width
    while kl_family(mean, hi, family) <= d:
        hi = mean + 2 * (hi - mean)
    for _ in range(iters):
        mid = (lo + hi) / 2
        if kl_family(mean, mid, family) <= d:
            lo = mid
        else:
            hi = mid
    return lo


def beta_quantile(a: float, b: float, level: float, iters: int = 200) -> float:
    """The level-quantile of Beta(a, b) by bisection on its CDF."""
    lo, hi = 0.0, 1.0
    for _ in range(iters):
        mid = (lo + hi) / 2
        if float(betainc(a, b, mid)) < level:
            lo = mid
        else:
            hi = mid
    return hi


def run_detailed(
    policy: str,
    family: str,
    means: list[float],
    horizon: int,
    runs: int,
    seed: int,
    params: dict,
    sigma: float = 1.0,
    alpha: float = 2.5,
    rng_seed: int = 12345,
    changes: list[tuple[int, list[float]]] | None = None,
) -> list[dict]:
    """Per run: pseudo-regret, realised regret, rate of optimal pulls and pull counts, for the
    policies of issue 21 (and ucb1), on a possibly piecewise-stationary instance."""
    K = len(means)
    key = seed_key(seed, 0, 0)
    rng = random.Random(rng_seed)
    out = []
    for r in range(runs):
        keys = [pair_key(key, r, a) for a in range(K)]
        n, s = [0] * K, [0.0] * K
        history: list[tuple[int, float]] = []  # (arm, reward) of every step
        samples: list[list[float]] = [[] for _ in range(K)]
        state = {"L": [0.0] * K, "N": [0.0] * K, "S": [0.0] * K}
        mu = list(means)
        regret = realised = 0.0
        optimal = 0
        for t in range(1, horizon + 1):
            for when, new in changes or []:
                if when == t:
                    mu = list(new)
            a, prob = choose_detailed(policy, t, n, s, samples, history, state, K, horizon, params, rng, family, sigma)
            n[a] += 1
            x = reward(family, mu[a], keys[a], n[a], sigma, alpha)
            s[a] += x
            samples[a].append(x)
            history.append((a, x))
            update_detailed(policy, a, x, prob, state, K, horizon, params)
            best = max(mu)
            regret += best - mu[a]
            realised += best - x
            optimal += mu[a] == best
        out.append({"regret": regret, "realised": realised, "best_rate": optimal / horizon, "counts": n})
    return out


def choose_detailed(policy, t, n, s, samples, history, state, K, T, params, rng, family, sigma):
    """(arm, probability vector or None)."""
    if policy in ("ucb1", "kl_ucb_gaussian", "kl_ucb_exp", "kl_ucb_poisson", "imed", "robust_ucb") and min(n) == 0:
        return n.index(0), None
    mean = [s[i] / n[i] if n[i] else 0.0 for i in range(K)]
    log_t = math.log(t)
    if policy == "ucb1":
        return argmax([mean[i] + math.sqrt(2 * log_t) / math.sqrt(n[i]) for i in range(K)]), None
    if policy == "bayes_ucb":
        return argmax([beta_quantile(1 + s[i], 1 + n[i] - s[i], 1 - 1 / t) for i in range(K)]), None
    if policy == "kl_ucb_gaussian":
        sd = params.get("sigma", sigma)
        return argmax([mean[i] + sd * math.sqrt(2 * log_t / n[i]) for i in range(K)]), None
    if policy in ("kl_ucb_exp", "kl_ucb_poisson"):
        fam = "exponential" if policy == "kl_ucb_exp" else "poisson"
        return argmax([kl_upper(mean[i], n[i], log_t, fam) for i in range(K)]), None
    if policy == "imed":
        best = max(mean)
        idx = [
            n[i] * (kl_family(mean[i], best, family, params.get("sigma", sigma)) if mean[i] < best else 0.0)
            + math.log(n[i])
            for i in range(K)
        ]
        return argmax([-v for v in idx]), None
    if policy == "robust_ucb":
        eps, u = params["eps"], params["u"]
        level = math.log(t * t)
        idx = []
        for i in range(K):
            kept = sum(x for j, x in enumerate(samples[i], start=1) if abs(x) <= (u * j / level) ** (1 / (1 + eps)))
            idx.append(kept / n[i] + 4 * u ** (1 / (1 + eps)) * (level / n[i]) ** (eps / (1 + eps)))
        return argmax(idx), None
    if policy in ("exp3", "exp3_ix"):
        eta = params.get("eta", math.sqrt(2 * math.log(K) / (K * T)))
        low = min(state["L"])
        w = [math.exp(-eta * (v - low)) for v in state["L"]]
        total = sum(w)
        prob = [v / total for v in w]
        u, acc = rng.random(), 0.0
        for i in range(K):
            acc += prob[i]
            if u < acc:
                return i, prob
        return K - 1, prob
    if policy == "sw_ucb":
        tau, xi, B = params["tau"], params.get("xi", 0.6), params.get("B", 1.0)
        recent = history[-tau:]
        nw = [sum(1 for a, _ in recent if a == i) for i in range(K)]
        sw = [sum(x for a, x in recent if a == i) for i in range(K)]
        idx = [
            math.inf if nw[i] == 0 else sw[i] / nw[i] + B * math.sqrt(xi * math.log(min(t, tau)) / nw[i])
            for i in range(K)
        ]
        return argmax(idx), None
    if policy == "d_ucb":
        xi, B = params.get("xi", 0.6), params.get("B", 1.0)
        N, S = state["N"], state["S"]
        total = max(sum(N), 1.0)
        idx = [
            math.inf if N[i] == 0 else S[i] / N[i] + 2 * B * math.sqrt(xi * math.log(total) / N[i]) for i in range(K)
        ]
        return argmax(idx), None
    raise ValueError(policy)


def update_detailed(policy, a, x, prob, state, K, T, params):
    if policy in ("exp3", "exp3_ix"):
        eta = params.get("eta", math.sqrt(2 * math.log(K) / (K * T)))
        gamma = params.get("gamma", eta / 2) if policy == "exp3_ix" else 0.0
        state["L"][a] += (1 - x) / (prob[a] + gamma)
    if policy == "d_ucb":
        g = params["gamma"]
        for i in range(K):
            state["N"][i] = g * state["N"][i] + (1.0 if i == a else 0.0)
            state["S"][i] = g * state["S"][i] + (x if i == a else 0.0)
