"""The numeric falsifier beyond the table: determinism, local search, rounding artefacts,
unsatisfiable assumptions and the CheckResult it produces."""

from __future__ import annotations

import pytest
from claim_table import claim

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import ClaimError, evaluate_claim_at, falsify


def test_deterministic_for_a_seed() -> None:
    for c in (claim("a^2 + b^2 >= 2*a*b", a="real", b="real"), claim("a*b <= a + b + 7", a="real", b="real")):
        first, second = falsify(c, seed=7), falsify(c, seed=7)
        assert (first.worst_point, first.worst_slack, first.checked, first.counterexample) == (
            second.worst_point,
            second.worst_slack,
            second.checked,
            second.counterexample,
        )


def test_local_search_finds_a_narrow_violation() -> None:
    # Fails only for |x - 3.7182| < 1e-4: too narrow to hit by sampling, easy to descend into.
    c = claim("(x - 3.7182)^2 >= 10^(-8)")
    report = falsify(c, seed=0, samples=500)
    assert report.confirmed, report.detail
    assert abs(report.counterexample["x"] - 3.7182) < 1e-4
    assert evaluate_claim_at(c, report.counterexample).holds is False


def test_integer_hill_climb_finds_an_exact_hit() -> None:
    c = Claim(variables=[ClaimVariable(name="n", domain="natural", low=1)], conclusion="n^2 + n + 41 != 1681")
    report = falsify(c, seed=0)
    assert report.counterexample == {"n": 40}


def test_rounding_artefacts_are_not_counterexamples() -> None:
    report = falsify(claim("x + 10^(-20) > x"), seed=0)
    assert not report.confirmed
    assert report.unconfirmed > 0  # floats saw violations; the exact re-check rejected them
    assert report.verdict == "no_counterexample"
    assert "not a proof" in report.detail


def test_contradictory_assumptions_are_inconclusive() -> None:
    report = falsify(claim("x > 100", "x > 2", "x < 1"), seed=0)
    assert report.verdict == "inconclusive" and report.feasible == 0
    assert report.to_check_result().verdict == "unknown"


def test_equality_assumption_is_solved_not_sampled() -> None:
    report = falsify(claim("x*y <= 1/5", "x + y == 1", x="real", y="real"), seed=0)
    assert report.confirmed
    assert report.counterexample["x"] + report.counterexample["y"] == pytest.approx(1.0)


def test_check_result_fields() -> None:
    c = claim("exp(x) >= 1 + x")
    result = falsify(c, seed=3).to_check_result()
    assert result.checker == "falsifier" and result.verdict == "passed" and result.counterexample is None
    assert "numpy" in (result.version or "")
    bad = falsify(claim("exp(x) >= 1 + 2*x"), seed=3).to_check_result()
    assert bad.verdict == "failed" and set(bad.counterexample) == {"x"}
    assert "counterexample" in bad.detail


def test_no_variables() -> None:
    assert falsify(Claim(conclusion="pi > 3"), seed=0).verdict == "no_counterexample"
    assert falsify(Claim(conclusion="pi > 22/7"), seed=0).counterexample == {}


def test_unparseable_claim_raises() -> None:
    with pytest.raises(ClaimError):
        falsify(claim("x >>= 1"))
