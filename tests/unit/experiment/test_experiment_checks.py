"""The expression evaluator, bound checks, rate fits and the alignment score."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eurekaclaw.agents.experiment.checks import Z_ONE_SIDED, alignment_score, fit_shapes, run_checks
from eurekaclaw.agents.experiment.claims import violation_rate
from eurekaclaw.agents.experiment.expr import ExpressionError, compile_expression
from eurekaclaw.agents.experiment.report import CSV_HEADER, SimulationReport, csv_rows, render_csv
from eurekaclaw.types.artifacts import Claim, ClaimVariable


def test_expressions_evaluate_and_vectorise():
    fn = compile_expression("8*log(T)*s + (1 + pi**2/3)*g", ["T", "s", "g"], relation=False)
    assert float(fn({"T": 100, "s": 2.0, "g": 1.0})) == pytest.approx(16 * math.log(100) + 1 + math.pi**2 / 3)
    assert compile_expression("x^2 + max(x, 1, 2)", ["x"])({"x": np.array([1.0, 3.0])}).tolist() == [3.0, 12.0]
    assert compile_expression("log(8, 2) ≤ 3", [], relation=True)({}) == 1.0
    assert fn.names == {"T", "s", "g"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os').system('true')", "not allowed"),
        ("open('x')", "not allowed"),
        ("x.real", "Attribute"),
        ("[x for x in y]", "not allowed"),
        ("lambda: 1", "Lambda"),
        ("secret", "unknown name"),
        ("log(x, base=2)", "keyword"),
        ("sqrt(x, x)", "takes 1..1"),
        ("x +", "cannot parse"),
        ("'a' + 'b'", "not a number"),
        ("+".join(["x"] * 300), "more than"),
    ],
)
def test_expressions_outside_the_whitelist_are_refused(text, message):
    with pytest.raises(ExpressionError, match=message):
        compile_expression(text, ["x", "y"])


def test_relation_truth_values_separate_false_from_undefined():
    rel = compile_expression("sqrt(x) >= 1 or x > 10", ["x"], relation=True)
    out = rel({"x": np.array([4.0, 0.25, -1.0, 20.0])})
    assert out[0] == 1.0 and out[1] == 0.0 and np.isnan(out[2]) and out[3] == 1.0
    with pytest.raises(ExpressionError, match="not a relation"):
        compile_expression("x + 1", ["x"], relation=True)


@pytest.mark.parametrize(
    ("shape", "curve", "slope"),
    [
        ("log", lambda t: 5 + 3 * np.log(t), 3.0),
        ("sqrt", lambda t: 1 + 2 * np.sqrt(t), 2.0),
        ("linear", lambda t: 0.1 * t + 4, 0.1),
        ("sqrt_log", lambda t: 0.5 * np.sqrt(t * np.log(t)), 0.5),
    ],
)
def test_slope_fits_recover_known_rates(shape, curve, slope):
    t = np.unique(np.round(np.logspace(3, 4, 25)))
    y = curve(t) * (1 + 0.002 * np.random.default_rng(1).standard_normal(t.size))
    fits = fit_shapes(t, y)
    assert max(fits, key=lambda k: fits[k]["r2"]) == shape
    assert fits[shape]["slope"] == pytest.approx(slope, rel=0.05)


def report(
    mean_at_end: float, stderr: float = 1.0, rate: str = "log", direction: str = "upper", asymptotic: bool = False
):
    t = [int(x) for x in np.unique(np.round(np.logspace(0, 4, 40)))]
    mean = [mean_at_end * math.log(x + 1) / math.log(t[-1] + 1) for x in t]
    return SimulationReport.model_validate(
        {
            "series": [
                {
                    "name": "p",
                    "instance": "i",
                    "runs": 50,
                    "t": t,
                    "mean": mean,
                    "stderr": [stderr] * len(t),
                    "points": [{"horizon": 10_000, "mean": mean[-1], "stderr": stderr}],
                }
            ],
            "variables": {"i": {"c": 10.0}},
            "bounds": [
                {
                    "name": "b",
                    "expression": "c*log(T)",
                    "direction": direction,
                    "asymptotic": asymptotic,
                    "rate": rate,
                    "series": ["p"],
                    "lemma_id": "L1",
                }
            ],
        }
    )


def checks_for(rep):
    fn = compile_expression(rep.bounds[0].expression, ["T", "c"], relation=False)
    return run_checks(rep, {"b": fn})


def test_upper_bound_check_uses_a_one_sided_margin():
    bound = 10 * math.log(10_000)
    inside = checks_for(report(bound + 1.0, stderr=1.0))  # above the bound, but within 2.33 s.e.
    check = inside["bound_checks"][0]
    assert check.held and check.margin == pytest.approx(bound - (bound + 1.0 - Z_ONE_SIDED))
    outside = checks_for(report(bound + 5.0, stderr=1.0))
    assert not outside["bound_checks"][0].held
    assert outside["lemma_rates"]["L1"] > 0
    lower = checks_for(report(bound - 5.0, stderr=1.0, direction="lower"))
    assert not lower["bound_checks"][0].held


def test_rate_claims_and_asymptotic_constants():
    good = checks_for(report(80.0))["rate_fits"][0]
    assert good["best_rate"] == "log" and good["consistent"] and good["theory_slope"] == pytest.approx(10.0)
    too_slow_for_sqrt_lower = checks_for(report(80.0, rate="sqrt", direction="lower"))["rate_fits"][0]
    assert not too_slow_for_sqrt_lower["consistent"]
    # asymptotic upper bound c log T with c = 10 against a curve of slope ~ 20: inconsistent
    steep = checks_for(report(20 * math.log(10_001), asymptotic=True))
    assert steep["bound_checks"] == [] and not steep["rate_fits"][0]["consistent"]


def test_alignment_score_averages_available_parts():
    rep = checks_for(report(80.0))
    score = alignment_score(rep["bound_checks"], rep["rate_fits"], {"L2": 0.5})
    assert score == pytest.approx((1.0 + 1.0 + 0.5) / 3)
    assert alignment_score([], [], {}) is None


def test_csv_long_format_with_bound_series():
    rep = report(30.0)
    found = checks_for(rep)
    text = render_csv(csv_rows(rep, found["curves"]))
    lines = text.splitlines()
    assert tuple(lines[0].split(",")) == CSV_HEADER
    bound_rows = [line.split(",") for line in lines if line.startswith("bound:b,")]
    assert bound_rows and all(r[3] == "0.0" and r[2] == r[4] == r[5] == r[6] for r in bound_rows)


def test_claim_violation_rate_by_sampling():
    amgm = Claim(
        variables=[ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")],
        conclusion="(a + b)/2 >= sqrt(a*b)",
    )
    rate, _ = violation_rate(amgm)
    assert rate == 0.0
    wrong = Claim(variables=[ClaimVariable(name="x", domain="interval", low=0, high=2)], conclusion="x**2 <= x")
    rate, detail = violation_rate(wrong)
    assert 0.3 < rate < 0.7 and "violations" in detail
    unparsable = Claim(variables=[ClaimVariable(name="x")], conclusion="x ∈ S")
    assert violation_rate(unparsable)[0] is None


def _series(**extra):
    return {"name": "p", "t": [10, 100], "mean": [1.0, 2.0], "stderr": [0.1, 0.2], "runs": 20, **extra}


def test_realised_regret_and_best_arm_rate_travel_to_the_csv_and_the_notes():
    from eurekaclaw.agents.experiment.report import outcome_lines

    rep = SimulationReport.model_validate(
        {
            "series": [
                _series(
                    realised_mean=[1.5, 2.5],
                    realised_stderr=[0.3, 0.4],
                    best_arm_rate_mean=[0.6, 0.9],
                    best_arm_rate_stderr=[0.05, 0.01],
                ),
                {**_series(), "name": "plain"},
            ]
        }
    )
    lines = render_csv(csv_rows(rep, {})).splitlines()
    header = lines[0].split(",")
    rows = {(r[0], r[1]): dict(zip(header, r, strict=True)) for r in (line.split(",") for line in lines[1:])}
    assert rows[("p", "100")]["realised_mean"] == "2.5" and rows[("p", "100")]["best_arm_rate_stderr"] == "0.01"
    assert rows[("plain", "100")]["realised_mean"] == "" and rows[("plain", "100")]["best_arm_rate_mean"] == ""
    assert outcome_lines(rep) == [
        "p at t=100 over 20 runs (mean ± s.e.): regret 2 ± 0.2, realised regret 2.5 ± 0.4, best-arm rate 0.900 ± 0.01"
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"realised_mean": [1.0, 2.0]}, "come together"),
        ({"realised_mean": [1.0], "realised_stderr": [0.1]}, "1 values for 2 times"),
        ({"best_arm_rate_mean": [0.5, 1.5], "best_arm_rate_stderr": [0.1, 0.1]}, r"\[0, 1\]"),
        ({"realised_mean": [1.0, float("nan")], "realised_stderr": [0.1, 0.1]}, "finite"),
        ({"realised_mean": [1.0, 2.0], "realised_stderr": [0.1, -0.1]}, "non-negative"),
    ],
)
def test_malformed_outcome_columns_are_refused(extra, message):
    with pytest.raises(ValueError, match=message):
        SimulationReport.model_validate({"series": [_series(**extra)]})
