"""Policy/family validation, the ETC default, the Lai-Robbins edge case mu* = 1 (issue 21, part 1)."""

from __future__ import annotations

import json
import logging
import math

import numpy as np
import pytest

from domains.mab import MABPlugin, theory
from domains.mab.compat import PolicyFamilyError, family_problem
from domains.mab.kl import kl_bernoulli
from domains.mab.policies import etc_default_m, etc_regret_bound
from domains.mab.simulator import simulate
from domains.mab.spec import MABExperimentSpec, check_spec
from eurekaclaw.errors import EXIT_BAD_INPUT, BadInputError
from eurekaclaw.tools.base import ToolRegistry

LEVEL1 = [0.9 - 0.08 * i for i in range(10)]


@pytest.mark.parametrize(
    ("policy", "family", "hint"),
    [
        ("ts_beta", "gaussian", "ts_gaussian"),
        ("kl_ucb", "gaussian", "kl_ucb_gaussian"),
        ("kl_ucb", "pareto", "robust_ucb"),
    ],
)
def test_simulate_refuses_a_policy_that_does_not_suit_the_family(policy, family, hint):
    with pytest.raises(PolicyFamilyError) as info:
        simulate(family, [1.0, 0.5], policy, 100, 4)
    err = info.value
    assert isinstance(err, BadInputError) and isinstance(err, ValueError) and err.exit_code == EXIT_BAD_INPUT
    text = err.user_message()
    assert "\n" not in text and text.startswith(f"policy {policy} needs bernoulli rewards")
    assert f"not {family}" in text and hint in text


def test_suitable_pairs_pass_and_unknown_policies_still_say_so():
    assert family_problem("ts_beta", "bernoulli") is None
    assert family_problem("ucb1", "pareto") is None  # runs everywhere (no guarantee on heavy tails)
    with pytest.raises(ValueError, match="unknown policy"):
        simulate("gaussian", [0.5, 0.4], "ucb9", 10, 2)


async def test_tool_reports_the_same_line_without_running():
    registry = ToolRegistry()
    MABPlugin().register_tools(registry)
    text, is_error = await registry.call(
        "simulate_bandit",
        {"means": [0.0, 1.0], "policy": "ts_beta", "horizon": 10**6, "runs": 2000, "family": "gaussian"},
    )
    assert is_error
    message = json.loads(text)["error"]
    assert "needs bernoulli rewards" in message and "exceeds the tool limit" not in message


def test_spec_check_reports_each_unsuitable_pairing_once():
    spec = MABExperimentSpec.model_validate(
        {
            "instances": [
                {"name": "g", "family": "gaussian", "means": [0.0, 1.0]},
                {"name": "h", "family": "gaussian", "means": [0.0, 2.0]},
                {"name": "b", "means": [0.5, 0.4]},
            ],
            "policies": [{"name": "kl_ucb"}, {"name": "ts_beta"}, {"name": "ucb1"}],
            "horizons": [100],
            "repetitions": 10,
        }
    ).normalised()
    errors = [e for e in check_spec(spec) if "rewards" in e]
    assert len(errors) == 2
    assert any(e.startswith("policy kl_ucb needs bernoulli") for e in errors)
    assert any(e.startswith("policy ts_beta needs bernoulli") for e in errors)


def test_etc_default_commits_on_the_level1_instance():
    """The two-arm tuning with the smallest gap gave m K = 17,330 > T: ETC never committed and
    paid exactly the round-robin regret, 3600. The K-arm default minimises the regret bound."""
    gaps = max(LEVEL1) - np.asarray(LEVEL1)
    m = etc_default_m(10_000, gaps, sigma=0.5)
    assert m * 10 < 10_000
    res = simulate("bernoulli", LEVEL1, "etc", 10_000, 50, seed=0)
    assert res.params["m"] == m and not res.notes
    assert res.at(10_000)["mean"] < 0.5 * 3600
    # the minimiser of the bound, against a brute-force scan
    ms = np.arange(1, 1001)
    assert etc_regret_bound(m, 10_000, gaps, 0.5) == pytest.approx(etc_regret_bound(ms, 10_000, gaps, 0.5).min())


def test_etc_default_is_the_textbook_value_for_two_arms():
    for gap in (0.1, 0.3, 0.6):
        textbook = max(1, math.ceil(4 / gap**2 * math.log(10_000 * gap**2 / 4)))
        assert etc_default_m(10_000, np.array([0.0, gap])) == pytest.approx(textbook, rel=0.1)


def test_etc_warns_when_it_cannot_commit(caplog):
    with caplog.at_level(logging.WARNING):
        res = simulate("bernoulli", [0.9, 0.5], "etc", 100, 3, params={"m": 50})
    assert res.notes and "never commits" in res.notes[0] and "never commits" in caplog.text
    assert res.summary()["notes"] == res.notes
    np.testing.assert_allclose(res.final_regret, 50 * 0.4)


def test_lai_robbins_constant_is_zero_when_the_best_mean_is_one():
    assert math.isinf(float(kl_bernoulli(0.5, 1.0))) and math.isinf(float(kl_bernoulli(0.5, 0.0)))
    assert float(kl_bernoulli(1.0, 1.0)) == 0.0 and float(kl_bernoulli(0.0, 0.0)) == 0.0
    assert theory.lai_robbins_constant([1.0, 0.5, 0.2]) == 0.0
    assert theory.lai_robbins_degenerate([1.0, 0.5]) and not theory.lai_robbins_degenerate([0.99, 0.5])
    # the clipped value it used to return was finite and large
    assert theory.lai_robbins_constant([1 - 1e-12, 0.5]) > 0
    out = theory.known_bounds([1.0, 0.5], 1000)
    assert out["bounds"]["lai_robbins"]["value"] == 0.0 and any("mu* = 1" in n for n in out["notes"])
    assert out["variables"]["lai_robbins"] == 0.0


async def test_kl_tools_say_infinity_in_json():
    registry = ToolRegistry()
    MABPlugin().register_tools(registry)
    text, is_error = await registry.call("mab_kl", {"p": 0.5, "q": 1.0})
    assert not is_error and json.loads(text)["kl"] == "inf"
    text, is_error = await registry.call("mab_lai_robbins", {"means": [1.0, 0.3]})
    out = json.loads(text)
    assert not is_error and out["constant"] == 0.0 and "infinite" in out["note"]


def test_gaussian_thompson_sampling_pulls_every_arm_first():
    """docs/mab.md: Gaussian TS (flat prior) needs one pull per arm before sampling."""
    res = simulate("gaussian", [0.0, 5.0, -3.0, 1.0], "ts_gaussian", 4, 20, seed=1)
    assert res.pulls.tolist() == [[1, 1, 1, 1]] * 20
