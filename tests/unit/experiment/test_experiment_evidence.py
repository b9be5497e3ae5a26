"""The experiment as evidence: identities that hold show no violations, one-sided rate fits,
and violated theorem bounds summarised for the result and for a re-plan."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from eurekaclaw.agents.experiment.checks import Z_ONE_SIDED, fit_rate, run_checks
from eurekaclaw.agents.experiment.claims import MAX_EXACT, sample_claim, violation_rate
from eurekaclaw.agents.experiment.expr import compile_expression
from eurekaclaw.agents.experiment.report import ReportBound, Series, SimulationReport
from eurekaclaw.agents.experiment.violations import (
    theorem_violations,
    violation_lines,
    worst_violation,
)
from eurekaclaw.types.artifacts import BoundCheck, Claim, ClaimVariable, ExperimentResult

COUNTED = re.compile(r"\d+ violations? in")


def var(name: str, domain: str = "real", **kw) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)


# --- claim sampling: identities -----------------------------------------------------------------

IDENTITIES = [
    ([var("a", "positive"), var("b", "positive")], "log(a*b) == log(a) + log(b)"),
    ([var("x")], "sin(x)^2 + cos(x)^2 == 1"),
    ([var("a"), var("b")], "(a + b)^2 == a^2 + 2*a*b + b^2"),
    ([var("n", "natural")], "Sum(k, (k, 1, n)) == n*(n + 1)/2"),
    ([var("n", "natural")], "Sum(k^3, (k, 1, n)) == (n*(n + 1)/2)^2"),
    ([var("q", "interval", low=0, high=1, open_high=True)], "(1 - q^4)/(1 - q) == 1 + q + q^2 + q^3"),
    ([var("x")], "exp(x) >= 1 + x"),  # equality at x = 0, sampled with 5% mass
    ([var("x", "interval", low=0, high=1)], "x*(1 - x) <= 1/4"),
]


@pytest.mark.parametrize(("variables", "conclusion"), IDENTITIES)
def test_claims_that_hold_show_no_violation(variables, conclusion):
    rate, detail = violation_rate(Claim(variables=variables, conclusion=conclusion))
    assert rate == 0.0, detail
    assert detail.startswith("no violation in") and not COUNTED.search(detail)


def test_float_cancellation_is_cleared_in_exact_arithmetic():
    # Terms of 1e14 cancel: the float difference is often far beyond any fixed tolerance.
    wide = [var("a", "interval", low=-1e7, high=1e7), var("b", "interval", low=-1e7, high=1e7)]
    found = sample_claim(Claim(variables=wide, conclusion="(a + b)^2 - (a^2 + 2*a*b + b^2) == 0"))
    assert found.candidates > MAX_EXACT and found.rechecked == MAX_EXACT
    assert found.rate == 0.0 and found.violations == 0 and found.rounding == found.candidates
    assert "rounding" in found.detail and not COUNTED.search(found.detail)


def test_false_identities_show_their_violations():
    rate, detail = violation_rate(Claim(variables=[var("a"), var("b")], conclusion="(a + b)^2 == a^2 + b^2"))
    assert rate > 0.8 and "violations in" in detail and "exact arithmetic" in detail
    # Wrong only at x = 0, where both sides are exactly 1: exact arithmetic decides the strict
    # relation that floating point cannot.
    found = sample_claim(Claim(variables=[var("x")], conclusion="exp(x) > 1 + x"))
    assert 0.02 < found.rate < 0.1 and found.violations > 0
    few = sample_claim(Claim(variables=[var("n", "natural", low=1, high=30)], conclusion="n^2 != 16"), samples=400)
    assert 0 < few.rate < 0.2 and few.rechecked == few.candidates  # every candidate checked: no estimate
    assert "confirmed in exact arithmetic" in few.detail


def test_relations_in_expressions_tolerate_rounding_at_equality():
    def truth(text: str, **env: float) -> float:
        return float(compile_expression(text, list(env), relation=True)(env))

    assert truth("0.1 + 0.2 == 0.3") == 1.0 and truth("0.1 + 0.2 <= 0.3") == 1.0 and truth("0.3 >= 0.1 + 0.2") == 1.0
    assert math.isnan(truth("0.1 + 0.2 > 0.3")) and math.isnan(truth("0.1 + 0.2 != 0.3"))
    assert truth("x == x + 1e-3", x=5.0) == 0.0 and truth("x < x + 1e-3", x=5.0) == 1.0
    x = np.linspace(-30, 30, 101)
    identity = compile_expression("sin(x)^2 + cos(x)^2 == 1", ["x"], relation=True)({"x": x})
    assert identity.tolist() == [1.0] * x.size


# --- rate fits: one-sided ---------------------------------------------------------------------


def series(curve, stderr: float = 0.1, noise: float = 0.0, seed: int = 0) -> Series:
    t = [int(x) for x in np.unique(np.round(np.logspace(0, 4, 60)))]
    rng = np.random.default_rng(seed)
    mean = [float(curve(x)) + noise * float(rng.standard_normal()) for x in t]
    return Series(name="p", t=t, mean=mean, stderr=[stderr] * len(t))


def fit(curve, expression: str, rate: str, direction: str = "upper", asymptotic: bool = False, **kw):
    bound = ReportBound(name="b", expression=expression, direction=direction, asymptotic=asymptotic, rate=rate)
    fn = compile_expression(expression, ["T", "c"], relation=False)
    return fit_rate(bound, fn, series(curve, **kw), {"c": 1.0})


@pytest.mark.parametrize("asymptotic", [False, True])
def test_upper_bound_with_slower_growth_is_consistent(asymptotic):
    slower = fit(lambda t: 3 * math.log(t), "c*sqrt(T)", "sqrt", asymptotic=asymptotic)
    assert slower["best_rate"] == "log" and slower["consistent"]
    far_below = fit(lambda t: 0.01 * math.log(t), "c*log(T)", "log", asymptotic=True)
    assert far_below["slope_ratio"] < 0.1 and far_below["consistent"]
    decreasing = fit(lambda t: 10 - math.log(t), "c*log(T)", "log", asymptotic=asymptotic)
    assert not decreasing["growing"] and decreasing["consistent"]


def test_flat_noisy_tail_never_reads_as_faster_growth():
    # Without real growth the best R^2 shape is noise; it must not fail an upper bound, and it
    # must not pass as growth for a lower bound that rises well beyond the noise.
    for seed in range(20):
        upper = fit(lambda t: 5.0, "c*log(T)", "log", noise=0.05, seed=seed)
        assert upper["observed_rate"] == "none" and upper["consistent"], upper["fits"]
        lower = fit(lambda t: 5.0, "c*log(T)", "log", direction="lower", noise=0.05, seed=seed)
        assert not lower["consistent"] and "slower" in lower["why"]


def test_faster_growth_fails_an_upper_bound_and_satisfies_a_lower_one():
    faster = fit(lambda t: math.sqrt(t), "c*log(T)", "log")
    assert faster["best_rate"] == "sqrt" and not faster["consistent"] and "faster" in faster["why"]
    assert fit(lambda t: math.sqrt(t), "c*log(T)", "log", direction="lower")["consistent"]
    assert not fit(lambda t: 3 * math.log(t), "c*sqrt(T)", "sqrt", direction="lower")["consistent"]
    steep = fit(lambda t: 5 * math.log(t), "c*log(T)", "log", asymptotic=True)
    assert not steep["consistent"] and "above" in steep["why"]
    assert fit(lambda t: 5 * math.log(t), "c*log(T)", "log", direction="lower", asymptotic=True)["consistent"]


def test_flat_tail_is_consistent_with_a_lower_bound_too_small_to_see():
    tiny = fit(lambda t: 5.0, "1e-4*log(T)", "log", direction="lower", noise=0.05)
    assert not tiny["growing"] and tiny["consistent"]


def test_deterministic_output_equal_to_the_bound_up_to_rounding_holds():
    t = [10, 100, 1000]
    exact = [0.1 * x + 0.2 * x for x in t]  # 0.3 T computed another way
    rep = SimulationReport.model_validate(
        {
            "series": [{"name": "s", "t": t, "mean": exact, "stderr": [0.0] * 3}],
            "bounds": [{"name": "b", "expression": "0.3*T", "series": ["s"]}],
        }
    )
    checks = run_checks(rep, {"b": compile_expression("0.3*T", ["T"], relation=False)})["bound_checks"]
    assert [c.held for c in checks] == [True]


# --- violations -------------------------------------------------------------------------------


def check(
    name: str, horizon: int, mean: float, se: float, bound: float, *, upper: bool = True, theorem: bool = True
) -> BoundCheck:
    limit = mean - Z_ONE_SIDED * se if upper else mean + Z_ONE_SIDED * se
    margin = bound - limit if upper else limit - bound
    return BoundCheck(
        name=name,
        horizon=horizon,
        empirical_mean=mean,
        std_error=se,
        theoretical=bound,
        held=margin >= 0,
        margin=margin,
        from_theorem=theorem,
    )


def result_with(checks: list[BoundCheck], **spec) -> ExperimentResult:
    checked = {
        "series": {
            "ucb1@hard": {"policy": "ucb1", "instance": "hard", "runs": 50},
            "ucb1@easy": {"policy": "ucb1", "instance": "easy", "runs": 50},
        },
        "variables": {"hard": {"K": 2.0, "sum_inv_gap": 10.0}, "easy": {"K": 3.0, "sum_inv_gap": 5.0}},
        "bounds": {
            "thm": {"expression": "log(T)*sum_inv_gap/100", "direction": "upper", "lemma_id": "L3"},
            "lower": {"expression": "log(T)", "direction": "lower", "lemma_id": None},
        },
    }
    instances = [
        {"name": "hard", "family": "bernoulli", "means": [0.5, 0.4]},
        {"name": "easy", "family": "bernoulli", "means": [0.9, 0.7, 0.5]},
    ]
    return ExperimentResult(
        bound_checks=checks, spec={"source": "designer", "instances": instances, "checked": checked, **spec}
    )


def test_violations_are_grouped_per_bound_and_series_with_the_worst_horizon():
    checks = [
        check("thm@ucb1@hard", 1000, 40.0, 1.0, 0.7),
        check("thm@ucb1@hard", 10000, 63.5, 0.8, 0.46),
        check("thm@ucb1@hard", 100, 0.5, 1.0, 0.46),  # held: within the one-sided tolerance
        check("thm@ucb1@easy", 10000, 20.0, 0.5, 0.23),
        check("lower@ucb1@easy", 10000, 1.0, 0.1, 9.2, upper=False),
        check("ref@ucb1@easy", 10000, 99.0, 0.1, 1.0, theorem=False),  # default spec: no evidence
    ]
    result = result_with(checks)
    lines = violation_lines(result)
    assert len(lines) == 3 and not any("ref@" in line for line in lines)
    hard = next(line for line in lines if "thm@ucb1@hard" in line)
    assert hard == (
        "bound thm@ucb1@hard on instance hard at T=10000: measured 63.5 ± 0.8, bound 0.46 "
        f"(99% one-sided lower limit {63.5 - Z_ONE_SIDED * 0.8:.4g} > bound); violated at 2/3 horizons; "
        "tests lemma L3"
    )
    low = next(line for line in lines if line.startswith("bound lower@"))
    assert "upper limit" in low and "< bound" in low and low.endswith("violated at 1/1 horizon")
    assert [v.bound for v in theorem_violations(result)][0] == "thm"


def test_worst_violation_is_machine_readable():
    result = result_with(
        [check("thm@ucb1@hard", 10000, 63.5, 0.8, 0.46), check("thm@ucb1@easy", 10000, 0.5, 0.5, 0.23)]
    )
    worst = worst_violation(result)
    assert worst is not None
    assert {k: worst[k] for k in ("bound", "series", "instance", "policy", "horizon", "lemma_id", "direction")} == {
        "bound": "thm",
        "series": "ucb1@hard",
        "instance": "hard",
        "policy": "ucb1",
        "horizon": 10000,
        "lemma_id": "L3",
        "direction": "upper",
    }
    assert worst["empirical_mean"] == 63.5 and worst["std_error"] == 0.8 and worst["theoretical"] == 0.46
    assert worst["violation"] == pytest.approx(63.04) and worst["confidence"] == 0.99
    assert worst["assignment"] == {"K": 2.0, "sum_inv_gap": 10.0, "T": 10000, "means": [0.5, 0.4], "gaps": [0.0, 0.1]}
    assert worst["arms"]["family"] == "bernoulli" and worst["description"].startswith("bound thm@ucb1@hard")


def test_worst_violation_survives_variables_stored_as_null():
    result = result_with([check("thm@ucb1@hard", 10000, 63.5, 0.8, 0.46)])
    result.spec["checked"]["variables"]["hard"]["lai_robbins"] = float("inf")
    stored = ExperimentResult.model_validate_json(result.model_dump_json())  # inf is kept as null
    assert worst_violation(stored)["variables"] == {"K": 2.0, "sum_inv_gap": 10.0, "lai_robbins": None}


def test_no_theorem_violation_without_failed_theorem_checks():
    assert worst_violation(result_with([check("thm@ucb1@hard", 10000, 0.3, 0.1, 0.46)])) is None
    assert worst_violation(result_with([check("thm@ucb1@hard", 10000, 63.5, 0.8, 0.46, theorem=False)])) is None
    assert worst_violation(ExperimentResult()) is None


def test_direction_is_recovered_without_the_report_metadata():
    bare = ExperimentResult(bound_checks=[check("lai@ts", 1000, 1.0, 0.1, 9.2, upper=False)], spec={"source": "code"})
    worst = worst_violation(bare)
    assert worst["direction"] == "lower" and worst["bound"] == "lai" and worst["series"] == "ts"
    assert worst["violation"] == pytest.approx(8.2) and worst["assignment"] == {"T": 1000}
