"""Theory helpers, the vectorised KL-UCB index, and the known bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mab_reference import klucb_bisect

from domains.mab import theory
from domains.mab.kl import kl_bernoulli, kl_gaussian, klucb_index
from eurekaclaw.agents.experiment.expr import compile_expression


def test_klucb_index_matches_scalar_bisection():
    rng = np.random.default_rng(0)
    p = rng.random(400)
    p[:6] = [0.0, 1.0, 0.5, 1e-9, 1 - 1e-9, 0.999]
    n = rng.integers(1, 5000, 400).astype(float)
    n[:3] = 1
    level = np.log(rng.integers(2, 10**6, 400).astype(float))
    got = klucb_index(p, n, level)
    want = np.array([klucb_bisect(a, b, c, iters=100) for a, b, c in zip(p, n, level, strict=True)])
    np.testing.assert_allclose(got, want, atol=1e-10)
    # the index is where n kl(p, q) meets the level (below 1)
    inner = (p > 0) & (got < 1 - 1e-9)
    np.testing.assert_allclose((n * kl_bernoulli(p, got))[inner], level[inner], rtol=1e-6)


def test_kl_values():
    assert float(kl_bernoulli(0.5, 0.5)) == 0.0
    assert float(kl_bernoulli(0.82, 0.9)) == pytest.approx(0.82 * math.log(0.82 / 0.9) + 0.18 * math.log(0.18 / 0.1))
    assert float(kl_bernoulli(0.0, 0.3)) == pytest.approx(-math.log(0.7))
    assert float(kl_gaussian(1.0, 0.0, sigma=2.0)) == pytest.approx(1 / 8)


def test_radii_follow_their_inequalities():
    assert theory.hoeffding_radius(100, 0.05) == pytest.approx(math.sqrt(math.log(20) / 200))
    assert theory.hoeffding_radius(100, 0.05, two_sided=True) == pytest.approx(math.sqrt(math.log(40) / 200))
    assert theory.subgaussian_radius(50, 0.01, sigma=2) == pytest.approx(math.sqrt(8 * math.log(100) / 50))
    n, delta, var, b = 80, 0.01, 0.04, 1.0
    eps = theory.bernstein_radius(n, delta, var, b)
    assert n * eps**2 / (2 * var + 2 * b * eps / 3) == pytest.approx(math.log(1 / delta))
    assert eps <= math.sqrt(2 * var * math.log(1 / delta) / n) + 2 * b * math.log(1 / delta) / (3 * n)
    x = math.log(3 / 0.1)
    assert theory.empirical_bernstein_radius(10, 0.1, 0.25, 1) == pytest.approx(math.sqrt(0.5 * x / 10) + 0.3 * x)
    with pytest.raises(ValueError, match="delta"):
        theory.hoeffding_radius(10, 1.5)


def test_lai_robbins_constant_bernoulli_and_gaussian():
    means = [0.9, 0.8, 0.5]
    want = 0.1 / float(kl_bernoulli(0.8, 0.9)) + 0.4 / float(kl_bernoulli(0.5, 0.9))
    assert theory.lai_robbins_constant(means) == pytest.approx(want)
    # Gaussian: Delta / (Delta^2 / 2 sigma^2) = 2 sigma^2 / Delta
    assert theory.lai_robbins_constant(means, "gaussian", sigma=0.5) == pytest.approx(0.5 / 0.1 + 0.5 / 0.4)


def test_regret_decomposition():
    out = theory.regret_decomposition([0.9, 0.7, 0.4], [80, 15, 5])
    assert out["regret"] == pytest.approx(0.2 * 15 + 0.5 * 5)
    assert [row["contribution"] for row in out["per_arm"]] == pytest.approx([0.0, 3.0, 2.5])
    with pytest.raises(ValueError, match="one entry per arm"):
        theory.regret_decomposition([0.9, 0.7], [1, 2, 3])


def test_known_bounds_values_and_expressions_agree():
    means = [0.9 - 0.08 * i for i in range(10)]
    T = 10_000
    out = theory.known_bounds(means, T)
    v = out["variables"]
    auer = sum(8 * math.log(T) / (0.9 - m) for m in means[1:]) + (1 + math.pi**2 / 3) * sum(0.9 - m for m in means)
    assert out["bounds"]["ucb1_auer2002"]["value"] == pytest.approx(auer)
    assert out["bounds"]["moss_minimax"]["value"] == pytest.approx(49 * math.sqrt(10 * T))
    assert out["bounds"]["lai_robbins"]["direction"] == "lower"
    # The expression strings the Experiment stage evaluates give the same numbers.
    for name, meta in theory.BOUND_EXPRESSIONS.items():
        fn = compile_expression(meta["expression"], [*v, "T"], relation=False)
        assert float(fn({**v, "T": T})) == pytest.approx(out["bounds"][name]["value"], rel=1e-12)
