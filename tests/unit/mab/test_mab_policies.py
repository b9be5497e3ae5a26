"""The policies and environments of issue 21 against the plain per-step reference (mab_reference):
deterministic policies pull for pull under common random numbers, randomised ones within 3
standard errors; realised regret, best-arm rate and s.e. bands; piecewise-stationary arms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mab_reference import kl_upper, pair_key, reward, run_detailed

from domains.mab import theory
from domains.mab.kl import kl_exponential, kl_poisson, klucb_exponential_index, klucb_poisson_index
from domains.mab.simulator import simulate
from domains.mab.streams import Family, pair_keys, seed_key

BERN = [0.7, 0.5, 0.45, 0.3]


@pytest.mark.parametrize("family", ["exponential", "poisson"])
def test_new_family_rewards_match_reference(family):
    key = seed_key(3, 0, 0)
    means = np.array([2.5, 0.4])
    keys = pair_keys(key, 1, 2)[:, None]
    pulls = np.arange(1, 300, dtype=np.uint64)[None, :].repeat(2, axis=0)
    got = Family(family).draw(keys, means[:, None], pulls)
    for a in range(2):
        want = [reward(family, means[a], pair_key(key, 0, a), j) for j in range(1, 300)]
        np.testing.assert_allclose(got[a], want, rtol=1e-12, atol=0)
    assert abs(got.mean(1)[0] - 2.5) < 0.5


def test_kl_indexes_match_bisection():
    rng = np.random.default_rng(1)
    mean = rng.random(200) * 4 + 0.01
    n = np.floor(10 ** rng.uniform(0, 5, 200))
    level = math.log(5000.0)
    for index, fam, kl in (
        (klucb_exponential_index, "exponential", kl_exponential),
        (klucb_poisson_index, "poisson", kl_poisson),
    ):
        got = index(mean, n, level)
        want = np.array([kl_upper(m, c, level, fam) for m, c in zip(mean, n, strict=True)])
        np.testing.assert_allclose(got, want, rtol=1e-9)
        np.testing.assert_allclose(n * kl(mean, got), level, rtol=1e-7)
    assert klucb_poisson_index(np.array([0.0]), np.array([4.0]), 2.0)[0] == pytest.approx(0.5)


DETERMINISTIC = [
    ("bayes_ucb", "bernoulli", BERN, {}, 300, 3),
    ("kl_ucb_gaussian", "gaussian", [1.0, 0.4, 0.2, -0.5], {}, 1200, 4),
    ("kl_ucb_exp", "exponential", [2.0, 1.2, 1.0, 0.5], {}, 600, 3),
    ("kl_ucb_poisson", "poisson", [3.0, 2.2, 2.0, 1.0], {}, 600, 3),
    ("imed", "bernoulli", BERN, {}, 1200, 4),
    ("imed", "gaussian", [1.0, 0.4, 0.2, -0.5], {}, 1200, 4),
    ("imed", "exponential", [2.0, 1.2, 1.0, 0.5], {}, 1200, 4),
    ("imed", "poisson", [3.0, 2.2, 2.0, 1.0], {}, 1200, 4),
    ("robust_ucb", "pareto", [2.0, 1.5, 1.2], {}, 500, 3),
    ("sw_ucb", "bernoulli", BERN, {"tau": 150}, 1500, 4),
    ("d_ucb", "bernoulli", BERN, {"gamma": 0.99}, 1500, 4),
]


@pytest.mark.parametrize(
    ("policy", "family", "means", "params", "horizon", "runs"),
    DETERMINISTIC,
    ids=[f"{c[0]}-{c[1]}" for c in DETERMINISTIC],
)
def test_deterministic_policies_equal_reference(policy, family, means, params, horizon, runs):
    res = simulate(family, means, policy, horizon, runs, seed=11, params=dict(params), block=8)
    want = run_detailed(policy, family, means, horizon, runs, seed=11, params=res.params)
    assert res.pulls.tolist() == [w["counts"] for w in want]
    np.testing.assert_allclose(res.final_regret, [w["regret"] for w in want], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(res.realised[-1], [w["realised"] for w in want], rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(res.best_rate[-1], [w["best_rate"] for w in want], atol=1e-12)


@pytest.mark.parametrize("policy", ["exp3", "exp3_ix"])
def test_exp3_agrees_with_reference_within_three_standard_errors(policy):
    horizon, runs = 800, 300
    res = simulate("bernoulli", BERN, policy, horizon, runs, seed=5)
    ref = np.array([w["regret"] for w in run_detailed(policy, "bernoulli", BERN, horizon, runs, seed=6, params={})])
    se = math.sqrt(res.final_regret.var(ddof=1) / runs + ref.var(ddof=1) / runs)
    assert abs(res.final_regret.mean() - ref.mean()) < 3 * se
    # and under its published bound (losses in [0, 1], eta = sqrt(2 ln K / (K T)))
    bound = theory.known_bounds(BERN, horizon)["bounds"]["exp3_minimax" if policy == "exp3" else "exp3_ix_minimax"]
    assert res.at(horizon)["mean"] < bound["value"]


CHANGES = [(400, [0.2, 0.5, 0.45, 0.8]), (900, [0.6, 0.9, 0.1, 0.3])]


@pytest.mark.parametrize(
    ("policy", "params"), [("ucb1", {}), ("sw_ucb", {"tau": 120}), ("d_ucb", {"gamma": 0.98}), ("sw_ucb", {})]
)
def test_piecewise_stationary_arms_match_reference(policy, params):
    res = simulate("bernoulli", BERN, policy, 1400, 4, seed=11, params=dict(params), changes=CHANGES, block=8)
    want = run_detailed(policy, "bernoulli", BERN, 1400, 4, seed=11, params=res.params, changes=CHANGES)
    assert res.pulls.tolist() == [w["counts"] for w in want]
    np.testing.assert_allclose(res.final_regret, [w["regret"] for w in want], atol=1e-9)
    np.testing.assert_allclose(res.realised[-1], [w["realised"] for w in want], atol=1e-9)
    np.testing.assert_allclose(res.best_rate[-1], [w["best_rate"] for w in want], atol=1e-12)
    assert res.changes == [(t, [float(x) for x in m]) for t, m in CHANGES]


def test_tuned_windows_follow_garivier_moulines():
    res = simulate("bernoulli", BERN, "sw_ucb", 10_000, 2, changes=CHANGES)
    assert res.params["tau"] == math.ceil(2 * math.sqrt(10_000 * math.log(10_000) / 2))
    res = simulate("bernoulli", BERN, "d_ucb", 10_000, 2)
    assert res.params["gamma"] == pytest.approx(1 - math.sqrt(1 / 10_000) / 4)


def test_forgetting_policies_beat_ucb1_after_a_late_change():
    """The best arm becomes the worst at t = 5000: UCB1, having pulled it ~5000 times, keeps it
    far longer than the policies that forget (measured: UCB1 1484, SW-UCB 313, D-UCB 838)."""
    means, late = [0.9, 0.5, 0.3], [(5000, [0.1, 0.5, 0.3])]
    final = {
        p: simulate("bernoulli", means, p, 10_000, 30, seed=2, changes=late).at(10_000)["mean"]
        for p in ("ucb1", "sw_ucb", "d_ucb")
    }
    assert final["sw_ucb"] < 0.5 * final["ucb1"] and final["d_ucb"] < 0.75 * final["ucb1"]


def test_robust_ucb_defaults_come_from_the_moments():
    res = simulate("pareto", [2.0, 1.0], "robust_ucb", 50, 2)
    x_m = 2.0 * 1.5 / 2.5
    assert res.params == {"eps": 1.0, "u": pytest.approx(2.5 * x_m**2 / 0.5)}
    heavy = simulate(Family("pareto", alpha=1.5), [2.0, 1.0], "robust_ucb", 50, 2)
    assert heavy.params["eps"] == pytest.approx(0.25) and math.isfinite(heavy.params["u"])
    assert theory.truncated_mean_radius(100, 0.01, 4.0, 1.0) == pytest.approx(4 * 2 * math.sqrt(math.log(100) / 100))


def test_outputs_realised_regret_best_arm_rate_and_bands():
    res = simulate("bernoulli", BERN, "ucb1", 2000, 200, seed=3)
    e = res.extra
    np.testing.assert_allclose(e["lower"], res.stats["mean"] - res.stats["stderr"])
    np.testing.assert_allclose(e["upper"], res.stats["mean"] + res.stats["stderr"])
    # E[realised] = E[pseudo]: they agree within noise; the realised one is noisier
    last = res.at(2000, extra=True)
    assert abs(last["realised_mean"] - last["mean"]) < 3 * math.hypot(last["realised_stderr"], last["stderr"])
    assert last["realised_stderr"] > last["stderr"]
    np.testing.assert_allclose(res.best_rate[-1], res.pulls[:, 0] / 2000)
    assert 0.5 < last["best_arm_rate_mean"] < 1 and np.all(np.diff(e["best_arm_rate_mean"][5:]) > -0.05)
    digest = res.summary(max_points=10)
    assert {"realised_mean", "realised_stderr", "best_arm_rate_mean", "lower", "upper"} <= set(digest["curve"])
    assert digest["final_regret"]["best_arm_rate_mean"] == pytest.approx(last["best_arm_rate_mean"])


def test_bad_changes_are_refused():
    with pytest.raises(ValueError, match="3 means for 4 arms"):
        simulate("bernoulli", BERN, "ucb1", 100, 2, changes=[(50, [0.1, 0.2, 0.3])])
    with pytest.raises(ValueError, match="increase"):
        simulate("bernoulli", BERN, "ucb1", 100, 2, changes=[(50, BERN), (40, BERN)])
    with pytest.raises(ValueError, match="bernoulli arm means"):
        simulate("bernoulli", BERN, "ucb1", 100, 2, changes=[(50, [0.1, 0.2, 0.3, 1.5])])


@pytest.mark.parametrize(("a", "b"), [(1.0, 1.0), (2.0, 9.0), (31.0, 4.0), (900.0, 101.0), (1.0, 5000.0)])
def test_thompson_beta_draws_follow_the_beta_law(a, b):
    """Kolmogorov-Smirnov test of the sampler ts_beta uses against scipy.stats.beta."""
    from scipy import stats

    from domains.mab.policies import beta_draws

    n = 4000
    shapes = np.concatenate([np.full(n, a), np.full(n, b)])
    x = beta_draws(np.random.default_rng(int(a * 7 + b)), shapes, np.empty(2 * n), np.empty(n))
    assert stats.kstest(x, stats.beta(a, b).cdf).pvalue > 1e-3


def test_thompson_argmax_frequencies_match_brute_force():
    """The arm ts_beta pulls from fixed posteriors, against scipy's own Beta sampler (chi-square)."""
    from scipy import stats

    from domains.mab.policies import beta_draws

    a = np.array([40.0, 30.0, 12.0, 3.0])
    b = np.array([12.0, 10.0, 6.0, 2.0])
    n = 20_000
    shapes = np.concatenate([np.tile(a, n), np.tile(b, n)])
    ours = beta_draws(np.random.default_rng(0), shapes, np.empty(8 * n), np.empty(4 * n)).reshape(n, 4).argmax(1)
    theirs = stats.beta(a, b).rvs(size=(n, 4), random_state=np.random.default_rng(1)).argmax(1)
    table = np.array([np.bincount(ours, minlength=4), np.bincount(theirs, minlength=4)])
    assert stats.chi2_contingency(table).pvalue > 1e-3


async def test_tool_simulates_piecewise_arms_with_the_new_outputs():
    import json

    from domains.mab import MABPlugin
    from eurekaclaw.tools.base import ToolRegistry

    registry = ToolRegistry()
    MABPlugin().register_tools(registry)
    text, is_error = await registry.call(
        "simulate_bandit",
        {
            "means": [0.8, 0.3],
            "policy": "d_ucb",
            "horizon": 400,
            "runs": 10,
            "changes": [{"t": 200, "means": [0.3, 0.8]}],
        },
    )
    out = json.loads(text)
    assert not is_error and out["changes"] == [[200, [0.3, 0.8]]]
    assert {"realised_mean", "best_arm_rate_mean", "lower", "upper"} <= set(out["curve"])


def test_sliding_window_memory_is_capped():
    with pytest.raises(ValueError, match="lower tau or the number of runs"):
        simulate("bernoulli", BERN, "sw_ucb", 10**7, 10_000, params={"tau": 10**6})
