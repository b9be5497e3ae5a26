"""SMT soundness against sympy's automatic rewriting, and numbers beyond the float range.

sympy rewrites sqrt(x*y) as sqrt(x)*sqrt(y) when it knows x >= 0; over the reals the rewritten
form is undefined at (0, -1) where the original is 0. A checker that works on the rewritten form
"proves" claims that fail there. Every FALSE claim below must never get an SMT pass and must be
refuted (a counterexample the exact re-check confirms); every TRUE one must never be refuted.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from claim_table import claim
from toolreq import require_module

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import evaluate_claim_at, falsify, smt_check
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.numeric import compile_numpy

SMT_TIMEOUT = 3.0


# (id, claim, smt_refutes): smt_refutes = Z3 itself must find the counterexample (the claim is
# translatable); otherwise it may only say unknown and the falsifier has to find it.
FALSE = [
    ("sqrt_product_split", claim("sqrt(x*y) + y >= 0", x="nonnegative", y="real"), True),
    ("sqrt_square_factor", claim("sqrt(x^2*y) + y >= 0", x="real", y="real"), True),
    ("sqrt_quotient", claim("sqrt(x/y) + y >= 0", x="nonnegative", y="real"), True),
    ("power_three_halves", claim("(x*y)^(3/2) + y >= 0", x="nonnegative", y="real"), True),
    ("quarter_power", claim("(x*y)^(1/4) + y >= 0", x="nonnegative", y="real"), True),
    ("cube_root_square_factor", claim("(x^2*y)^(1/3) + y >= 0", x="real", y="real"), True),
    ("three_factors", claim("sqrt(x*y*z) + z >= 0", x="nonnegative", y="nonnegative", z="real"), True),
    ("constant_factor", claim("sqrt(4*x*y) + y >= 0", x="nonnegative", y="real"), True),
    ("inside_quotient", claim("sqrt(x*y)/(1 + x) + y >= 0", x="nonnegative", y="real"), True),
    ("inside_abs", claim("abs(sqrt(x*y)) + y >= 0", x="nonnegative", y="real"), True),
    ("natural_factor", claim("sqrt(n*y) + y >= 0", n="natural", y="real"), True),
    ("sqrt_of_square_is_x", claim("sqrt(x^2) == x"), True),
    ("power_of_square_is_x", claim("(x^2)^(1/2) == x"), True),
    ("root_squared_plus_y", claim("(x^(1/2))^2 + y >= 0", x="real", y="real"), True),
    ("cancelled_quotient_plus_y", claim("x/x + y >= 1", x="real", y="real"), True),
    # both factors negative: the product's root is defined (x = -4, y = -1 gives 2 - 4 < 0)
    ("negative_factors", claim("(x*y)^(1/2) + x >= 0", x="real", y="real"), True),
    # untranslatable as written; sympy's form (log(exp(y)) -> y) splits the root: Z3 must not
    # prove it on the narrower domain, the falsifier refutes it
    ("simplified_form_split", claim("sqrt(x*y) + log(exp(y)) >= 0", x="nonnegative", y="real"), False),
    ("log_of_split_root", claim("log(1 + sqrt(x*y)) + y >= 0", x="nonnegative", y="real"), False),
    ("log_of_product", claim("log(x*y) >= log(x)", x="real", y="real"), False),
    ("exp_log_shifted", claim("exp(log(x)) >= x + 10^(-9)", x="real"), False),
]

TRUE = [
    # (id, claim, smt_proves)
    ("positive_factor", claim("sqrt(x*y) + y >= 0", x="positive", y="real"), True),
    ("root_of_product_nonneg", claim("sqrt(x*y) >= 0", x="nonnegative", y="real"), True),
    ("inverse_root", claim("1/sqrt(x*y) + y >= 0", x="nonnegative", y="real"), True),
    ("split_where_defined", claim("(x*y)^(1/2) == sqrt(x)*sqrt(y)", x="real", y="real"), True),
    ("root_squared", claim("sqrt(x*y)^2 == x*y", x="real", y="real"), True),
    ("sqrt_squared", claim("sqrt(x)^2 == x"), True),
    ("sqrt_of_square_abs", claim("(x^2)^(1/2) == abs(x)"), True),
    ("cancel", claim("x/x == 1"), True),
    ("cancel_two", claim("x*y/y == x", x="real", y="real"), True),
    ("removable_point", claim("(x^2 - 1)/(x - 1) != 2"), True),
    ("exp_log", claim("exp(log(x)) == x"), True),
    ("log_exp", claim("log(exp(x)) == x"), True),
    ("simplified_form_positive", claim("sqrt(x*y) + log(exp(y)) >= 0", x="positive", y="real"), True),
    ("log_product_rule", claim("log(x*y) == log(x) + log(y)", x="real", y="real"), False),
    ("log_of_negative_product", claim("log(x*y) <= x*y - 1", x="real", y="real"), False),
]


@pytest.fixture(autouse=True)
def _z3() -> None:
    require_module("z3")


@pytest.mark.parametrize(("case_id", "c", "smt_refutes"), FALSE, ids=[f[0] for f in FALSE])
def test_false_claim_never_proved_and_refuted(case_id: str, c: Claim, smt_refutes: bool) -> None:
    smt = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert smt.verdict != "passed", smt.detail
    if smt_refutes:
        assert smt.verdict == "failed", smt.detail
    report = falsify(c, seed=0)
    assert report.confirmed, report.detail
    for point in (report.counterexample, smt.counterexample):
        if point is not None:
            assert evaluate_claim_at(c, point).holds is False


@pytest.mark.parametrize(("case_id", "c", "smt_proves"), TRUE, ids=[t[0] for t in TRUE])
def test_true_claim_never_refuted(case_id: str, c: Claim, smt_proves: bool) -> None:
    report = falsify(c, seed=0)
    assert not report.confirmed, report.detail
    smt = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert smt.verdict in ("passed", "unknown") and smt.counterexample is None, smt.detail
    if smt_proves:
        assert smt.verdict == "passed", smt.detail


def test_the_measured_hole_point_is_a_counterexample() -> None:
    """(0, -1): x*y = 0 so sqrt is defined and sqrt(0) + (-1) = -1 < 0."""
    c = claim("sqrt(x*y) + y >= 0", x="nonnegative", y="real")
    ev = evaluate_claim_at(c, {"x": 0, "y": -1})
    assert ev.holds is False and ev.status == "fails"
    # floats evaluate the form as written: sqrt(0*-1) is 0, not 0*nan
    fn = compile_numpy(list(parse_claim(c).symbols.values()), [parse_claim(c).conclusion[0].lhs])
    assert fn(np.array([0.0]), np.array([-1.0]))[0][0] == -1.0


def test_vacuous_through_definedness_is_not_a_proof() -> None:
    result = smt_check(claim("exp(log(x)) >= x", "x < 0"), timeout_s=SMT_TIMEOUT)
    assert result.verdict == "unknown" and "vacuous" in result.detail


def test_worker_refuses_a_proof_on_a_narrowed_domain() -> None:
    """The as-written form is untranslatable (sin); sympy's form sqrt(x)*sqrt(y) + y needs
    y >= 0, which the claim does not imply: unsat there must come back as unknown."""
    c = claim("sqrt(x*y) + y + sin(y) - sin(y) >= 0", "y > -2", x="nonnegative", y="real")
    request = {"claim": c.model_dump(mode="json"), "timeout_s": SMT_TIMEOUT}
    out = subprocess.run(
        [sys.executable, "-m", "eurekaclaw.verify.smt_worker"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    reply = json.loads(out.stdout)
    assert reply["status"] == "unknown", reply
    assert "less than the claim's domain" in reply["reason"]


def test_translator_records_needs_and_conditional_definitions() -> None:
    import z3

    from eurekaclaw.verify.smt_translate import Translator

    parsed = parse_claim(claim("sqrt(x*y) + 1/(x - 1) >= 0", x="nonnegative", y="real"))
    tr = Translator(z3, parsed)
    tr.negated_conclusion()
    needs = [str(n) for n in tr.needs]
    assert any(">=" in n or "<=" in n for n in needs) and any("!=" in n or "Distinct" in n or "Not" in n for n in needs)
    # a definition alone never restricts the variables: with y = -1, x = 1 it is satisfiable
    s = z3.Solver()
    s.add(*tr.defs, tr.vars["x"] == 1, tr.vars["y"] == -1)
    assert s.check() == z3.sat
    simplified = Translator(z3, parsed, simplified=True)
    simplified.negated_conclusion()
    assert len(simplified.needs) > len(tr.needs)  # sqrt(x)*sqrt(y): one root more, y >= 0


# --------------------------------------------------------------------------------------------
# numbers beyond the float range
# --------------------------------------------------------------------------------------------

HUGE_FALSE = [
    claim("exp(x) <= 1e400"),
    claim("x <= 1e300*1e300"),
    claim("x*exp(x)*exp(-x) <= 10^5"),  # every violation overflows exp in floats
    Claim(variables=[ClaimVariable(name="n", domain="natural")], conclusion="factorial(n) <= 10^400"),
    claim("x + 1e400 <= 1e400 + 1"),
    Claim(conclusion="1e400 + 1 < 1e400"),
    Claim(conclusion="exp(1000) <= 1e400"),
]
HUGE_TRUE = [
    claim("exp(x) <= 1e400", "x <= 900"),
    claim("x <= 1e300*1e300", "x <= 10^300"),
    claim("exp(x) + 1e400 > 1e400"),
    claim("x^2 + 1e-400 > 0"),
    claim("1e400*x^2 >= 0"),
    Claim(conclusion="1e400 + 1 > 1e400"),
    Claim(conclusion="exp(900) <= 1e400"),
]


@pytest.mark.parametrize("c", HUGE_FALSE, ids=[c.conclusion for c in HUGE_FALSE])
def test_huge_false_claims_are_refuted_without_overflow(c: Claim) -> None:
    report = falsify(c, seed=0)
    smt = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert smt.verdict != "passed"
    found = [p for p in (report.counterexample, smt.counterexample) if p is not None]
    assert found, f"{report.detail} | {smt.detail}"
    assert all(evaluate_claim_at(c, p).holds is False for p in found)


@pytest.mark.parametrize("c", HUGE_TRUE, ids=[c.conclusion + ";" + ",".join(c.assumptions) for c in HUGE_TRUE])
def test_huge_true_claims_are_not_refuted(c: Claim) -> None:
    report = falsify(c, seed=0)
    assert not report.confirmed and report.verdict == "no_counterexample", report.detail
    smt = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert smt.verdict in ("passed", "unknown") and smt.counterexample is None


def test_exact_model_beyond_float_range_is_confirmed() -> None:
    c = claim("x <= 1e300*1e300")
    smt = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert smt.verdict == "failed"
    assert evaluate_claim_at(c, smt.counterexample).holds is False
    assert evaluate_claim_at(c, {"x": str(10**600 + 1)}).holds is False
    assert evaluate_claim_at(c, {"x": str(10**600)}).holds is True


def test_numeric_constants_beyond_float_range_become_inf() -> None:
    x = sp.Symbol("x", real=True)
    fn = compile_numpy(
        [x], [sp.Integer(10) ** 400, x + sp.Integer(10) ** 400, sp.Rational(1, 10**400) * x, -(sp.Integer(10) ** 400)]
    )
    big, shifted, tiny, neg = fn(np.array([1.0, 2.0]))
    assert np.all(np.isposinf(big)) and np.all(np.isposinf(shifted)) and np.all(neg == -np.inf)
    assert np.all(tiny == 0.0)


def test_nonfinite_points_are_decided_exactly() -> None:
    """exp(1000)*exp(-1000) is inf*0 = nan in floats; the falsifier decides such points exactly
    instead of dropping them, and reports that it did."""
    report = falsify(claim("x*exp(x)*exp(-x) <= 10^5"), seed=0)
    assert report.confirmed and report.counterexample["x"] > 10**5
    assert "exactly" in report.detail
    ok = falsify(claim("exp(x) <= 1e400", "x <= 900"), seed=0)
    assert ok.verdict == "no_counterexample" and ok.feasible > 0


def test_untranslatable_premises_are_left_out_only_with_a_witness() -> None:
    """z3 cannot express sin; proving from the other premises proves more, never less,
    but a left-out premise that can never hold would make the claim vacuous: a point where all
    premises hold is re-checked exactly before the proof counts."""
    ok = smt_check(claim("x^2 >= 0", "sin(x) <= 2"), timeout_s=SMT_TIMEOUT)
    assert ok.verdict == "passed" and "sin(x) <= 2" in ok.detail
    vacuous = smt_check(claim("x^2 >= 0", "sin(x) > 2"), timeout_s=SMT_TIMEOUT)
    assert vacuous.verdict == "unknown" and "sin(x) > 2" in vacuous.detail
    # exp is translated (with its axioms), so an impossible exp premise is seen as vacuous
    assert "vacuous" in smt_check(claim("x^2 >= 0", "exp(x) < 0"), timeout_s=SMT_TIMEOUT).detail
