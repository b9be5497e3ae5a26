"""ts_beta's lazy sampler (domains/mab/thompson.py, compiled by thompson_kernel.py when numba is
installed) against the exact law of Thompson sampling.

The reference is computed, not simulated: on a small instance the distribution of the final
pull counts follows from a Markov chain over posteriors whose step probabilities
P(arm i has the largest Beta draw) are integrals of polynomials, exact under Gauss-Legendre
quadrature. The simulator's counts must fit it (chi-square), with the sampler's knobs set so
that every path of the lazy scheme is taken often: block renewals, direct draws, exceedance
events, pairs turning direct after a pull, and runs with no value above their threshold."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from domains.mab.simulator import simulate

MEANS = (0.7, 0.5, 0.3)
HORIZON = 7
NODES, WEIGHTS = np.polynomial.legendre.leggauss(64)
X, W = (NODES + 1) / 2, WEIGHTS / 2  # on [0, 1]


def choice_probabilities(state: tuple[tuple[int, int], ...]) -> np.ndarray:
    """P(arm i draws the largest Beta(1 + s_i, 1 + f_i) value) for every arm."""
    pdf = np.array([stats.beta.pdf(X, 1 + s, 1 + f) for s, f in state])
    cdf = np.array([stats.beta.cdf(X, 1 + s, 1 + f) for s, f in state])
    probs = np.array([(W * pdf[i] * np.prod(np.delete(cdf, i, axis=0), axis=0)).sum() for i in range(len(state))])
    return probs / probs.sum()


def exact_count_law(means: tuple[float, ...], horizon: int) -> dict[tuple[int, ...], float]:
    law: dict[tuple[tuple[int, int], ...], float] = {tuple((0, 0) for _ in means): 1.0}
    for _ in range(horizon):
        nxt: dict[tuple[tuple[int, int], ...], float] = {}
        for state, prob in law.items():
            for arm, p_arm in enumerate(choice_probabilities(state)):
                s, f = state[arm]
                for reward, p_r in ((1, means[arm]), (0, 1 - means[arm])):
                    new = list(state)
                    new[arm] = (s + reward, f + 1 - reward)
                    key = tuple(new)
                    nxt[key] = nxt.get(key, 0.0) + prob * p_arm * p_r
        law = nxt
    counts: dict[tuple[int, ...], float] = {}
    for state, prob in law.items():
        key = tuple(s + f for s, f in state)
        counts[key] = counts.get(key, 0.0) + prob
    return counts


EXACT = exact_count_law(MEANS, HORIZON)


def chi_square_pvalue(pulls: np.ndarray) -> float:
    runs = pulls.shape[0]
    observed: dict[tuple[int, ...], int] = {}
    for row in pulls.astype(int):
        observed[tuple(row)] = observed.get(tuple(row), 0) + 1
    assert set(observed) <= set(EXACT), "a pull-count vector the exact law gives probability 0"
    big = [k for k, p in EXACT.items() if p * runs >= 5]
    exp = [EXACT[k] * runs for k in big]
    obs = [observed.get(k, 0) for k in big]
    rest_exp, rest_obs = runs - sum(exp), runs - sum(obs)
    if rest_exp >= 5:
        exp.append(rest_exp)
        obs.append(rest_obs)
    else:  # too little mass outside the big bins for a bin of its own
        exp[-1] += rest_exp
        obs[-1] += rest_obs
    return float(stats.chisquare(obs, exp).pvalue)


def test_exact_law_is_a_distribution():
    assert math.isclose(sum(EXACT.values()), 1.0, rel_tol=1e-12)
    assert all(sum(k) == HORIZON for k in EXACT)


@pytest.mark.parametrize(
    ("params", "seed"),
    [
        ({"lazy": 0}, 1),  # the direct sampler
        ({}, 2),  # the defaults
        # every non-leader lazy, thresholds at the leader's mean: events and below-threshold runs
        ({"rows": 3, "direct_p": 1.01, "threshold_sd": 0.0}, 3),
        # thresholds far below the leader: many events per block, pairs turning direct
        ({"rows": 2, "direct_p": 1.01, "threshold_sd": 1.0}, 4),
        ({"rows": 5, "direct_p": 0.3, "threshold_sd": 0.5}, 5),
    ],
)
def test_pull_counts_follow_the_exact_thompson_law(params, seed):
    res = simulate("bernoulli", list(MEANS), "ts_beta", HORIZON, 40_000, seed=seed, params=params)
    assert chi_square_pvalue(res.pulls) > 1e-3


def test_the_paths_under_test_are_taken(monkeypatch):
    """The lazy configurations above really exercise events and below-threshold runs."""
    import domains.mab.thompson as th

    seen = {"events": 0, "below": 0, "turned_direct": 0}
    below, pulled = th.LazyBetaThompson._below, th.LazyBetaThompson.pulled

    def count_below(self, runs, flat):
        seen["below"] += runs.size
        return below(self, runs, flat)

    def count_pulled(self, flat):
        seen["turned_direct"] += int((~self.direct[flat]).sum())
        return pulled(self, flat)

    events = th.LazyBetaThompson._events

    def count_events(self, lazy, p):
        events(self, lazy, p)
        seen["events"] += self.ev_pair.size

    monkeypatch.setattr(th.LazyBetaThompson, "_below", count_below)
    monkeypatch.setattr(th.LazyBetaThompson, "pulled", count_pulled)
    monkeypatch.setattr(th.LazyBetaThompson, "_events", count_events)
    # the numpy path (numba's kernel pulls inside compiled code; it draws the same numbers,
    # test_mab_thompson_kernel.py)
    simulate(
        "bernoulli",
        list(MEANS),
        "ts_beta",
        HORIZON,
        2000,
        seed=0,
        params={"rows": 3, "direct_p": 1.01, "threshold_sd": 0.0, "compiled": 0},
    )
    assert all(v > 100 for v in seen.values()), seen


def test_benchmark_workload_matches_the_direct_sampler_in_distribution():
    """K = 10, T = 2000: mean pulls per arm of the lazy and the direct sampler (independent
    random numbers) agree within 4 standard errors of their difference, arm by arm."""
    means = [0.9 - 0.08 * i for i in range(10)]
    lazy = simulate("bernoulli", means, "ts_beta", 2000, 400, seed=11, crn=False)
    direct = simulate("bernoulli", means, "ts_beta", 2000, 400, seed=12, crn=False, params={"lazy": 0})
    diff = lazy.pulls.mean(0) - direct.pulls.mean(0)
    se = np.sqrt(lazy.pulls.var(0, ddof=1) / 400 + direct.pulls.var(0, ddof=1) / 400)
    assert np.all(np.abs(diff) <= 4 * se + 1e-9), (diff, se)


@pytest.mark.parametrize(("a", "b", "q"), list(itertools.product((1.0, 3.0, 40.0), (1.0, 7.0, 900.0), (0.1, 0.999))))
def test_exceedance_values_follow_the_truncated_beta_law(a, b, q):
    """The values drawn for an event (U uniform on (0, p), X = betainccinv(a, b, U)) and for a
    run below its threshold (U on (p, 1)) have the Beta law truncated above and below s."""
    from scipy import special

    rng = np.random.default_rng(int(a * 13 + b * 7 + q * 100))
    dist = stats.beta(a, b)
    s = float(dist.ppf(q))  # the threshold at the q-quantile
    p = float(special.betainc(b, a, 1.0 - s))
    assert p == pytest.approx(1 - q, rel=1e-9)
    above = special.betainccinv(a, b, rng.random(3000) * p)
    below = special.betainccinv(a, b, p + rng.random(3000) * (1 - p))
    assert above.min() > s and below.max() <= s
    assert stats.kstest(above, lambda x: (dist.cdf(x) - dist.cdf(s)) / p).pvalue > 1e-3
    assert stats.kstest(below, lambda x: dist.cdf(x) / (1 - p)).pvalue > 1e-3
