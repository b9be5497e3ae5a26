"""Theory helpers for stochastic K-armed bandits: confidence radii, divergences, the Lai-Robbins
constant, the regret decomposition, and known regret bounds evaluated on an instance.

Conventions: rewards of arm i have mean mu_i, mu* = max_i mu_i, gap Delta_i = mu* - mu_i, T is
the horizon, ln the natural logarithm. Radii are one-sided unless two_sided=True (which replaces
ln(1/delta) by ln(2/delta)).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from domains.mab.kl import kl_family

KL_FAMILIES = ("bernoulli", "gaussian", "exponential", "poisson")

# Named bounds as claim expressions over T and the instance variables of instance_variables().
# The Experiment stage evaluates these strings; known_bounds() computes the same numbers directly.
BOUND_EXPRESSIONS: dict[str, dict[str, Any]] = {
    "ucb1_auer2002": {
        "expression": "8*log(T)*sum_inv_gap + (1 + pi**2/3)*sum_gap",
        "direction": "upper",
        "asymptotic": False,
        "rate": "log",
        "policies": ["ucb1"],
        "source": "Auer, Cesa-Bianchi & Fischer (2002), Theorem 1; rewards in [0, 1]",
    },
    "ucb1_minimax": {
        "expression": "sqrt(32*K*T*log(T)) + (1 + pi**2/3)*sum_gap",
        "direction": "upper",
        "asymptotic": False,
        "rate": "sqrt",
        "policies": ["ucb1"],
        "source": "from Auer et al. (2002) Theorem 1, splitting arms at gap sqrt(8 K ln T / T)",
    },
    "moss_minimax": {
        "expression": "49*sqrt(K*T)",
        "direction": "upper",
        "asymptotic": False,
        "rate": "sqrt",
        "policies": ["moss"],
        "source": "Audibert & Bubeck (2009); rewards in [0, 1]",
    },
    "klucb_asymptotic": {
        "expression": "lai_robbins*log(T)",
        "direction": "upper",
        "asymptotic": True,
        "rate": "log",
        "policies": ["kl_ucb", "kl_ucb_gaussian", "kl_ucb_exp", "kl_ucb_poisson", "bayes_ucb", "imed"],
        "source": "Garivier & Cappé (2011), Cappé et al. (2013) for exponential families, Kaufmann, Cappé & "
        "Garivier (2012) for Bayes-UCB, Honda & Takemura (2015) for IMED: limsup E[N_i(T)] / ln T <= "
        "1 / KL(nu_i, nu*)",
    },
    "exp3_minimax": {
        "expression": "sqrt(2*T*K*log(K))",
        "direction": "upper",
        "asymptotic": False,
        "rate": "sqrt",
        "policies": ["exp3"],
        "source": "Bubeck & Cesa-Bianchi (2012), Theorem 3.1: Exp3 with eta = sqrt(2 ln K / (K T)), losses in "
        "[0, 1], any oblivious (so any stochastic) environment",
    },
    "exp3_ix_minimax": {
        "expression": "3/sqrt(2)*sqrt(K*T*log(K))",
        "direction": "upper",
        "asymptotic": False,
        "rate": "sqrt",
        "policies": ["exp3_ix"],
        "source": "the exponential-weights analysis with Neu's (2015) implicit-exploration estimates: ln K / eta "
        "+ (eta / 2 + gamma) K T, at eta = 2 gamma = sqrt(2 ln K / (K T)); losses in [0, 1]",
    },
    "lai_robbins": {
        "expression": "lai_robbins*log(T)",
        "direction": "lower",
        "asymptotic": True,
        "rate": "log",
        "policies": [],
        "source": "Lai & Robbins (1985): liminf R_T / ln T >= sum_i Delta_i / KL(nu_i, nu*)",
    },
}


def hoeffding_radius(n: float, delta: float, low: float = 0.0, high: float = 1.0, two_sided: bool = False) -> float:
    """(high - low) sqrt(ln(1/delta) / (2 n)): P(mean_n - mu >= radius) <= delta for rewards in
    [low, high]."""
    _check_n_delta(n, delta)
    return (high - low) * math.sqrt(_log_inv(delta, two_sided) / (2.0 * n))


def subgaussian_radius(n: float, delta: float, sigma: float = 1.0, two_sided: bool = False) -> float:
    """sqrt(2 sigma^2 ln(1/delta) / n) for sigma-sub-Gaussian rewards."""
    _check_n_delta(n, delta)
    return math.sqrt(2.0 * sigma * sigma * _log_inv(delta, two_sided) / n)


def bernstein_radius(n: float, delta: float, variance: float, b: float, two_sided: bool = False) -> float:
    """The epsilon solving n eps^2 / (2 variance + 2 b eps / 3) = ln(1/delta): Bernstein's
    inequality for |X - mu| <= b. It is at most sqrt(2 variance L / n) + 2 b L / (3 n)."""
    _check_n_delta(n, delta)
    L = _log_inv(delta, two_sided)
    a = b * L / (3.0 * n)
    return a + math.sqrt(a * a + 2.0 * variance * L / n)


def empirical_bernstein_radius(n: float, delta: float, sample_variance: float, b: float) -> float:
    """sqrt(2 V x / n) + 3 b x / n with x = ln(3/delta): holds with probability >= 1 - delta for
    rewards in [0, b] (Audibert, Munos & Szepesvári 2009, Theorem 1)."""
    _check_n_delta(n, delta)
    x = math.log(3.0 / delta)
    return math.sqrt(2.0 * sample_variance * x / n) + 3.0 * b * x / n


def truncated_mean_radius(n: float, delta: float, u: float, eps: float = 1.0) -> float:
    """4 u^(1/(1+eps)) (ln(1/delta) / n)^(eps/(1+eps)): with E|X|^(1+eps) <= u, the truncated
    empirical mean (samples s kept when |X_s| <= (u s / ln(1/delta))^(1/(1+eps))) exceeds the
    mean by more than this with probability at most delta (Bubeck, Cesa-Bianchi & Lugosi 2013,
    Lemma 1); Robust UCB uses delta = t^-2."""
    _check_n_delta(n, delta)
    if not 0 < eps <= 1 or not u > 0:
        raise ValueError("need 0 < eps <= 1 and u > 0")
    return 4.0 * u ** (1.0 / (1.0 + eps)) * (math.log(1.0 / delta) / n) ** (eps / (1.0 + eps))


def sw_ucb_window(horizon: int, breakpoints: int, B: float = 1.0) -> int:
    """Garivier & Moulines' (2011) window for Upsilon breakpoints, tau = 2 B sqrt(T ln T / Upsilon);
    with it SW-UCB's regret is O(sqrt(Upsilon T ln T))."""
    return max(1, math.ceil(2.0 * B * math.sqrt(horizon * math.log(max(horizon, 2)) / max(1, breakpoints))))


def d_ucb_discount(horizon: int, breakpoints: int, B: float = 1.0) -> float:
    """Garivier & Moulines' (2011) discount, gamma = 1 - sqrt(Upsilon / T) / (4 B); with it
    D-UCB's regret is O(sqrt(Upsilon T) ln T)."""
    return 1.0 - math.sqrt(max(1, breakpoints) / horizon) / (4.0 * B)


def kl_divergence(p: float, q: float, family: str = "bernoulli", sigma: float = 1.0) -> float:
    """KL(nu_p, nu_q) for two laws of the family with means p and q; may be infinite (Bernoulli
    with q in {0, 1} and p != q, Poisson with q = 0 < p)."""
    if family not in KL_FAMILIES:
        raise ValueError(f"no closed-form KL for family {family!r} ({', '.join(KL_FAMILIES)})")
    return float(kl_family(p, q, family, sigma))


def gaps(means: list[float]) -> np.ndarray:
    mu = np.asarray(means, dtype=np.float64)
    if mu.ndim != 1 or mu.size < 2:
        raise ValueError("an instance needs at least two arm means")
    return mu.max() - mu


def lai_robbins_constant(means: list[float], family: str = "bernoulli", sigma: float = 1.0) -> float:
    """sum over suboptimal i of Delta_i / KL(nu_i, nu*): any consistent policy has
    liminf R_T / ln T >= this constant (Lai & Robbins 1985).

    A term with KL(nu_i, nu*) = infinity contributes 0, which is the true value, not a limit of
    clipped logarithms: with Bernoulli mu* = 1 the optimal arm never pays 0, a single 0 rules an
    arm out, and bounded regret is achievable, so the constant is 0 and the bound says only
    R_T >= 0 (o(ln T) regret is possible)."""
    mu = np.asarray(means, dtype=np.float64)
    best = float(mu.max())
    total = 0.0
    for m, g in zip(mu, gaps(means), strict=True):
        if g > 0:
            kl = kl_divergence(float(m), best, family, sigma)
            total += 0.0 if math.isinf(kl) else float(g) / kl
    return total


def lai_robbins_degenerate(means: list[float], family: str = "bernoulli") -> bool:
    """True when some suboptimal arm has KL(nu_i, nu*) = infinity (Bernoulli mu* = 1)."""
    mu = np.asarray(means, dtype=np.float64)
    return family == "bernoulli" and float(mu.max()) >= 1.0 and bool(np.any(mu < mu.max()))


def regret_decomposition(means: list[float], pulls: list[float]) -> dict[str, Any]:
    """R_T = sum_i Delta_i E[N_i(T)]: the contribution of each arm to the pseudo-regret."""
    g = gaps(means)
    n = np.asarray(pulls, dtype=np.float64)
    if n.shape != g.shape:
        raise ValueError("pulls must have one entry per arm")
    rows = [
        {"arm": i, "mean": float(m), "gap": float(d), "pulls": float(c), "contribution": float(d * c)}
        for i, (m, d, c) in enumerate(zip(means, g, n, strict=True))
    ]
    return {"per_arm": rows, "regret": float(g @ n), "horizon": float(n.sum())}


def instance_variables(means: list[float], family: str = "bernoulli", sigma: float = 1.0) -> dict[str, float]:
    """The quantities bound expressions may use (besides T)."""
    g = gaps(means)
    pos = g[g > 0]
    variables = {
        "K": float(len(means)),
        "mu_star": float(max(means)),
        "sum_gap": float(pos.sum()),
        "sum_inv_gap": float((1.0 / pos).sum()) if pos.size else 0.0,
        "min_gap": float(pos.min()) if pos.size else 0.0,
        "max_gap": float(pos.max()) if pos.size else 0.0,
        "n_suboptimal": float(pos.size),
        "sigma": float(sigma),
    }
    if family in KL_FAMILIES:
        variables["lai_robbins"] = lai_robbins_constant(means, family, sigma)
    return variables


def known_bounds(means: list[float], horizon: int, family: str = "bernoulli", sigma: float = 1.0) -> dict[str, Any]:
    """The bounds of BOUND_EXPRESSIONS evaluated on an instance at horizon T."""
    v = instance_variables(means, family, sigma)
    T = float(horizon)
    lnT = math.log(T)
    tail = (1.0 + math.pi**2 / 3.0) * v["sum_gap"]
    values = {
        "ucb1_auer2002": 8.0 * lnT * v["sum_inv_gap"] + tail,
        "ucb1_minimax": math.sqrt(32.0 * v["K"] * T * lnT) + tail,
        "moss_minimax": 49.0 * math.sqrt(v["K"] * T),
        "exp3_minimax": math.sqrt(2.0 * T * v["K"] * math.log(v["K"])),
        "exp3_ix_minimax": 3.0 / math.sqrt(2.0) * math.sqrt(v["K"] * T * math.log(v["K"])),
    }
    if "lai_robbins" in v:
        values["klucb_asymptotic"] = values["lai_robbins"] = v["lai_robbins"] * lnT
    out = {}
    for name, value in values.items():
        meta = BOUND_EXPRESSIONS[name]
        out[name] = {"value": value, **{k: meta[k] for k in ("direction", "asymptotic", "policies", "source")}}
    notes = []
    if lai_robbins_degenerate(means, family):
        notes.append(
            "mu* = 1 with Bernoulli rewards: KL(nu_i, nu*) is infinite, the Lai-Robbins constant "
            "is 0 and bounded regret is achievable; the asymptotic bounds are 0"
        )
    if family != "bernoulli":
        notes.append(
            "UCB1, MOSS, Exp3 and KL-UCB (Bernoulli) bounds assume rewards in [0, 1]; this instance is " + family
        )
    return {"horizon": horizon, "variables": v, "bounds": out, "notes": notes}


def _check_n_delta(n: float, delta: float) -> None:
    if not n > 0:
        raise ValueError("n must be positive")
    if not 0 < delta < 1:
        raise ValueError("delta must lie in (0, 1)")


def _log_inv(delta: float, two_sided: bool) -> float:
    return math.log((2.0 if two_sided else 1.0) / delta)
