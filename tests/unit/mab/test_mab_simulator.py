"""The vectorised simulator against the plain-Python reference, plus its documented properties."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from mab_reference import pair_key, reward, run_reference, uniform

from domains.mab.simulator import log_checkpoints, simulate
from domains.mab.streams import Family, pair_keys, seed_key, uniforms
from domains.mab.theory import known_bounds

LEVEL1 = [0.9 - 0.08 * i for i in range(10)]
SMALL = [0.7, 0.5, 0.45, 0.3]


def test_streams_match_scalar_splitmix_reference():
    key = seed_key(7, 0, 0)
    keys = pair_keys(key, runs=3, arms=4)
    counters = np.arange(1, 50, dtype=np.uint64)
    got = uniforms(keys[:, None], counters[None, :])
    for q in range(12):
        r, a = divmod(q, 4)
        pk = pair_key(key, r, a)
        assert int(keys[q]) == pk
        assert got[q].tolist() == [uniform(pk, int(j)) for j in counters]


@pytest.mark.parametrize("family", ["bernoulli", "gaussian", "pareto"])
def test_family_rewards_match_reference(family):
    key = seed_key(3, 0, 0)
    fam = Family(family, sigma=0.5, alpha=2.5)
    means = np.array([0.6, 0.2])
    keys = pair_keys(key, 1, 2)[:, None]
    pulls = np.arange(1, 200, dtype=np.uint64)[None, :].repeat(2, axis=0)
    got = fam.draw(keys, means[:, None], pulls)
    for a in range(2):
        want = [reward(family, means[a], pair_key(key, 0, a), j, sigma=0.5) for j in range(1, 200)]
        np.testing.assert_allclose(got[a], want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("policy", "family", "params"),
    [
        ("ucb1", "bernoulli", {}),
        ("ucb_v", "bernoulli", {}),
        ("moss", "bernoulli", {}),
        ("kl_ucb", "bernoulli", {}),
        ("etc", "bernoulli", {"m": 25}),
        ("ucb1", "gaussian", {}),
    ],
)
def test_deterministic_policies_equal_reference_loop(policy, family, params):
    """Common random numbers make deterministic policies reproducible pull for pull."""
    horizon, runs = (500, 3) if policy == "kl_ucb" else (1500, 4)  # the scalar KL-UCB loop is slow
    res = simulate(family, SMALL, policy, horizon, runs, seed=11, params=dict(params), block=8)
    want_regret, want_counts = run_reference(policy, family, SMALL, horizon, runs, seed=11, params=params)
    assert res.pulls.tolist() == want_counts
    np.testing.assert_allclose(res.final_regret, want_regret, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("policy", "params"), [("ts_beta", {}), ("eps_greedy", {"epsilon": 0.1})])
def test_randomised_policies_agree_statistically(policy, params):
    horizon, runs = 600, 100
    res = simulate("bernoulli", SMALL, policy, horizon, runs, seed=5, params=dict(params))
    ref, _ = run_reference(policy, "bernoulli", SMALL, horizon, runs, seed=6, params=params)
    ref = np.asarray(ref)
    se = math.sqrt(res.final_regret.var(ddof=1) / runs + ref.var(ddof=1) / runs)
    assert abs(res.final_regret.mean() - ref.mean()) < 4 * se


def test_ucb1_level1_regret_near_398_and_below_auer_bound():
    """Textbook UCB1 (bonus sqrt(2 ln t / n)), K=10, mu_i = 0.9 - 0.08 i, T=10,000, R=100.
    Measured: 396.8 +- 0.7 with R=2000, and a standard error of about 3.0 with R=100. The band
    398 +- 5% is about 6 standard errors wide, safe for any seed, yet it catches a wrong bonus:
    sqrt(ln t / n) gives about 228 and sqrt(4 ln t / n) about 660 on this workload."""
    res = simulate("bernoulli", LEVEL1, "ucb1", 10_000, 100, seed=0)
    final = res.at(10_000)
    assert 378 <= final["mean"] <= 418
    assert final["stderr"] < 6
    for i, t in enumerate(res.checkpoints):
        if t >= 10:
            bound = known_bounds(LEVEL1, int(t))["bounds"]["ucb1_auer2002"]["value"]
            assert res.stats["mean"][i] < bound


def test_seeded_runs_are_reproducible_and_seed_dependent():
    a = simulate("bernoulli", SMALL, "ts_beta", 500, 10, seed=1)
    b = simulate("bernoulli", SMALL, "ts_beta", 500, 10, seed=1)
    c = simulate("bernoulli", SMALL, "ts_beta", 500, 10, seed=2)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.pulls, b.pulls)
    assert not np.array_equal(a.pulls, c.pulls)


def test_window_block_size_does_not_change_results():
    """Refilling every 4 steps or every 64 must feed the policy the same rewards."""
    a = simulate("gaussian", SMALL, "ucb_v", 800, 6, seed=4, block=4)
    b = simulate("gaussian", SMALL, "ucb_v", 800, 6, seed=4, block=64)
    assert np.array_equal(a.pulls, b.pulls)
    assert np.array_equal(a.regret, b.regret)


def test_common_random_numbers_switch_changes_streams_only_when_off():
    shared = simulate("bernoulli", SMALL, "ucb1", 400, 5, seed=9, crn=True)
    again = simulate("bernoulli", SMALL, "ucb1", 400, 5, seed=9, crn=True)
    own = simulate("bernoulli", SMALL, "ucb1", 400, 5, seed=9, crn=False)
    assert np.array_equal(shared.pulls, again.pulls)
    assert not np.array_equal(shared.pulls, own.pulls)


def test_outputs_checkpoints_quantiles_and_pulls():
    res = simulate("bernoulli", SMALL, "moss", 2000, 20, seed=3, n_checkpoints=30)
    assert res.checkpoints[0] == 1 and res.checkpoints[-1] == 2000
    assert np.all(np.diff(res.checkpoints) > 0)
    assert res.pulls.shape == (20, 4) and np.all(res.pulls.sum(axis=1) == 2000)
    s = res.stats
    assert np.all(s["q10"] <= s["q50"]) and np.all(s["q50"] <= s["q90"])
    assert np.all(np.diff(s["mean"]) >= 0)  # pseudo-regret never decreases
    gaps = max(SMALL) - np.asarray(SMALL)
    np.testing.assert_allclose(res.final_regret, res.pulls @ gaps)
    digest = res.summary(max_points=10)
    assert len(digest["curve"]["t"]) <= 10 and digest["final_regret"]["mean"] == pytest.approx(s["mean"][-1])


def test_memory_does_not_grow_with_the_horizon():
    def peak(horizon: int) -> int:
        tracemalloc.start()
        simulate("bernoulli", SMALL, "ucb1", horizon, 20, seed=0, checkpoints=log_checkpoints(horizon, 20))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    assert peak(20_000) < 1.5 * peak(1_000)


def test_bad_inputs_are_rejected_with_a_message():
    with pytest.raises(ValueError, match="bernoulli arm means"):
        simulate("bernoulli", [0.5, 1.5], "ucb1", 10, 2)
    with pytest.raises(ValueError, match="unknown policy"):
        simulate("bernoulli", [0.5, 0.4], "ucb9", 10, 2)
    with pytest.raises(ValueError, match="at least two arm means"):
        simulate("bernoulli", [0.5], "ucb1", 10, 2)
    with pytest.raises(ValueError, match="alpha > 1"):
        Family("pareto", alpha=0.9)
