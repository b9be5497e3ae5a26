"""ts_beta's compiled kernel (domains/mab/thompson_kernel.py, numba from the `fast` extra).

Without numba these skip (fail under EUREKACLAW_REQUIRE_TOOLS=1) except the fallback test: the
numpy path must then be chosen by itself. The kernel must (1) draw exact Beta variates (KS test
of the draws it makes inside a step), (2) give bit for bit the runs of the numpy path for the same
seed, in every path of the lazy scheme, so the numpy path's exact-law tests (test_mab_thompson.py)
carry over, and (3) agree in regret with the plain-Python reference within 3 standard errors.
Problem sizes are small: numba compiles once per machine (cache=True), a second or two."""

from __future__ import annotations

import math

import numpy as np
import pytest
from mab_reference import run_reference
from scipy import stats
from toolreq import require_module

import domains.mab.policies as policies_mod
from domains.mab.simulator import simulate
from domains.mab.thompson_kernel import BELOW_THRESHOLD, compiled_available

SMALL = [0.7, 0.5, 0.45, 0.3]
LEVEL1 = [0.9 - 0.08 * i for i in range(10)]


@pytest.fixture
def numba_kernel() -> None:
    require_module("numba", "numba is not installed (pip install 'eurekaclaw[fast]')")


def test_without_numba_the_numpy_path_runs(monkeypatch):
    monkeypatch.setattr(policies_mod, "compiled_available", lambda: False)
    res = simulate("bernoulli", SMALL, "ts_beta", 300, 4, seed=1)
    assert res.kernel == "numpy" and res.summary()["kernel"] == "numpy"
    assert res.pulls.sum() == 300 * 4


def test_compiled_params_zero_forces_numpy():
    assert simulate("bernoulli", SMALL, "ts_beta", 50, 2, params={"compiled": 0}).kernel == "numpy"


@pytest.mark.parametrize(("a", "b"), [(1.0, 1.0), (2.0, 9.0), (31.0, 4.0), (900.0, 101.0), (1.0, 5000.0)])
def test_kernel_beta_draws_follow_the_beta_law(numba_kernel, a, b):
    """One compiled step with every pair drawn directly and the threshold above 1: the kernel
    stops before pulling (BELOW_THRESHOLD) with the step's draws in `row`; KS against scipy."""
    from domains.mab.thompson_kernel import kernel

    n = 4000
    shapes = np.concatenate([np.full(n, a), np.full(n, b)])
    row, base = np.empty(n), np.zeros(n)
    direct, dbuf, nd = np.ones(n, dtype=bool), np.arange(n, dtype=np.intp), np.array([n], dtype=np.intp)
    ptr = np.zeros(n, dtype=np.intp)
    no_events = (np.empty(0, dtype=np.intp), np.empty(0), np.zeros(2, dtype=np.intp))
    done, k, status = kernel()(
        np.random.default_rng(int(a * 7 + b)),
        1,
        False,
        0,
        1,
        shapes,
        shapes,
        shapes,
        ptr,
        row,
        base,
        direct,
        dbuf,
        nd,
        *no_events,
        np.full(n, 2.0),
        1,
        np.empty(n, dtype=np.intp),
        np.empty(2 * n),
    )
    assert (done, k, status) == (0, 1, BELOW_THRESHOLD)
    assert np.all((row > 0) & (row < 1))
    assert stats.kstest(row, stats.beta(a, b).cdf).pvalue > 1e-3


PATHS = [
    ({}, SMALL, 3000, 40),  # the defaults
    ({"rows": 3, "direct_p": 1.01, "threshold_sd": 0.0}, [0.7, 0.5, 0.3], 400, 300),  # events, runs below
    ({"rows": 2, "direct_p": 1.01, "threshold_sd": 1.0}, [0.7, 0.5, 0.3], 400, 300),  # pairs turning direct
    ({"rows": 5, "direct_p": 0.3, "threshold_sd": 0.5}, LEVEL1, 1500, 30),
]


@pytest.mark.parametrize(("params", "means", "horizon", "runs"), PATHS)
def test_kernel_gives_the_numpy_runs_bit_for_bit(numba_kernel, params, means, horizon, runs):
    fast = simulate("bernoulli", means, "ts_beta", horizon, runs, seed=7, params=dict(params), n_checkpoints=37)
    slow = simulate(
        "bernoulli", means, "ts_beta", horizon, runs, seed=7, params={**params, "compiled": 0}, n_checkpoints=37
    )
    assert (fast.kernel, slow.kernel) == ("numba", "numpy")
    assert np.array_equal(fast.pulls, slow.pulls)
    for mine, theirs in ((fast.regret, slow.regret), (fast.realised, slow.realised), (fast.best_rate, slow.best_rate)):
        assert np.array_equal(mine, theirs)


def test_kernel_bit_for_bit_across_a_change_of_means(numba_kernel):
    """Piecewise-stationary arms: the window is rebuilt in place mid-run; the kernel follows it."""
    changes = [(700, [0.3, 0.45, 0.5, 0.7])]
    fast = simulate("bernoulli", SMALL, "ts_beta", 1500, 30, seed=3, changes=changes)
    slow = simulate("bernoulli", SMALL, "ts_beta", 1500, 30, seed=3, changes=changes, params={"compiled": 0})
    assert fast.kernel == "numba" and np.array_equal(fast.pulls, slow.pulls)
    assert np.array_equal(fast.regret, slow.regret)


def test_kernel_regret_agrees_with_reference_within_three_standard_errors(numba_kernel):
    horizon, runs = 600, 300
    res = simulate("bernoulli", SMALL, "ts_beta", horizon, runs, seed=5)
    assert res.kernel == "numba"
    ref = np.asarray(run_reference("ts_beta", "bernoulli", SMALL, horizon, runs, seed=6, params={})[0])
    se = math.sqrt(res.final_regret.var(ddof=1) / runs + ref.var(ddof=1) / runs)
    assert abs(res.final_regret.mean() - ref.mean()) < 3 * se


def test_kernel_is_compiled_code(numba_kernel):
    """The kernel the tests above exercise is numba's compiled dispatcher, not the Python source."""
    import numba

    from domains.mab.thompson_kernel import kernel

    assert compiled_available() and isinstance(kernel(), numba.core.registry.CPUDispatcher)


def test_stepping_one_step_at_a_time_gives_the_same_runs(numba_kernel, monkeypatch):
    """TSBeta.step (one kernel call per step) and TSBeta.run (one per range) agree."""
    whole = simulate("bernoulli", SMALL, "ts_beta", 700, 20, seed=9)
    monkeypatch.setattr(policies_mod.TSBeta, "run", policies_mod.Policy.run)
    stepped = simulate("bernoulli", SMALL, "ts_beta", 700, 20, seed=9)
    assert stepped.kernel == "numba" and np.array_equal(whole.pulls, stepped.pulls)
