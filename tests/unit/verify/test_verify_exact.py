"""evaluate_claim_at: the arbiter every counterexample has to pass."""

from __future__ import annotations

import math

import pytest
from claim_table import claim

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import ClaimError, evaluate_claim_at


def test_holds_and_fails_with_slack() -> None:
    c = claim("(a + b)/2 >= sqrt(a*b)", a="positive", b="positive")
    ev = evaluate_claim_at(c, {"a": 1, "b": 4})
    assert ev.holds is True and ev.slack == pytest.approx(0.5)
    c = claim("(a + b)/2 <= sqrt(a*b)", a="positive", b="positive")
    ev = evaluate_claim_at(c, {"a": 1, "b": 4})
    assert ev.holds is False and ev.slack == pytest.approx(-0.5) and ev.status == "fails"


def test_exact_equality_decides_strict_relations() -> None:
    assert (
        evaluate_claim_at(claim("(a + b)/2 > sqrt(a*b)", a="positive", b="positive"), {"a": 2, "b": 2}).holds is False
    )
    assert (
        evaluate_claim_at(claim("(a + b)/2 >= sqrt(a*b)", a="positive", b="positive"), {"a": 2, "b": 2}).holds is True
    )
    assert evaluate_claim_at(claim("x/(1 + x) < log(1 + x)", "x > -1"), {"x": 0}).holds is False


def test_float_artefacts_do_not_count() -> None:
    # In doubles x + 1e-20 == x for x = 1e6; exactly it is larger.
    ev = evaluate_claim_at(claim("x + 10^(-20) > x"), {"x": 1e6})
    assert ev.holds is True and ev.slack > 0


def test_decimal_reading_of_floats() -> None:
    # 0.1 is read as exactly 1/10 (in binary floating point 3*0.1 != 0.3)
    assert evaluate_claim_at(claim("floor(10*x) == 1"), {"x": 0.1}).holds is True
    assert evaluate_claim_at(claim("3*x == 3/10"), {"x": 0.1}).holds is True
    assert evaluate_claim_at(claim("x == 1/3"), {"x": "1/3"}).holds is True


@pytest.mark.parametrize(
    ("c", "point", "status"),
    [
        (claim("log(x) <= x - 1"), {"x": -1}, "undefined"),
        (claim("sqrt(x)^2 >= 0"), {"x": -1}, "undefined"),  # sympy simplifies to x, still undefined
        (claim("1/x > -1"), {"x": 0}, "undefined"),
        (claim("x >= 0", "x > 1"), {"x": 0.5}, "outside"),
        (claim("n >= 1", n="natural"), {"n": 2.5}, "outside"),
        (claim("n >= 1", n="natural"), {"n": -1}, "outside"),
        (claim("x >= 0"), {"y": 1}, "outside"),
        (claim("x >= 0"), {"x": math.inf}, "outside"),
        (claim("x >= 0"), {"x": "__import__('os')"}, "outside"),
    ],
)
def test_points_where_the_claim_says_nothing(c: Claim, point: dict, status: str) -> None:
    ev = evaluate_claim_at(c, point)
    assert ev.holds is None and ev.status == status


def test_huge_values_use_high_precision_path() -> None:
    c = claim("factorial(n) >= 2^n", n="natural")
    ev = evaluate_claim_at(c, {"n": 10**6})
    assert ev.holds is True and "60-digit" in ev.detail
    c = claim("(1 + x)^n >= 1 + n*x", "x >= -1", n="natural", x="real")
    assert evaluate_claim_at(c, {"n": 10**6, "x": 1e-3}).holds is True
    # tiny numbers on both sides are still compared relative to their size
    c = claim("exp(-2*(n + 1)*t^2) <= exp(-2*n*t^2)", n="natural", t="positive")
    assert evaluate_claim_at(c, {"n": 10**6, "t": 1000.0}).holds is True


def test_sum_without_closed_form_is_evaluated() -> None:
    c = Claim(
        variables=[ClaimVariable(name="n", domain="natural", low=1)], conclusion="Sum(1/sqrt(k), (k, 1, n)) <= sqrt(n)"
    )
    assert evaluate_claim_at(c, {"n": 1}).holds is True
    assert evaluate_claim_at(c, {"n": 2}).holds is False
    assert evaluate_claim_at(c, {"n": 1943}).holds is False  # high-precision summation path


def test_bad_claim_raises_claim_error() -> None:
    with pytest.raises(ClaimError):
        evaluate_claim_at(claim("y > 0"), {"x": 1})


def test_high_precision_keeps_huge_inputs_exact() -> None:
    """At a fixed 60 digits, n = 10^70 and n - 2 round to the same number and binomial(n, 3)
    came out as 1/6: a confirmed "counterexample" to a true claim. Inputs are now carried at
    full length and every high-precision value is computed twice."""
    natural = [ClaimVariable(name="n", domain="natural")]
    c = Claim(variables=natural, conclusion="binomial(n, 3) >= 1")
    for n in (10**70, 10**400 + 1):
        assert evaluate_claim_at(c, {"n": n}).holds is True
    identity = Claim(variables=natural, conclusion="factorial(n + 1) == (n + 1)*factorial(n)")
    assert evaluate_claim_at(identity, {"n": 10**400}).holds is not False
    # a cancellation that 60 digits cannot see: 10^100 * 10^-80 = 10^20
    cancel = Claim(variables=natural, conclusion="0*factorial(n) + 10^100*((n + 10^(-80)) - n) >= 1")
    assert evaluate_claim_at(cancel, {"n": 5000}).holds is not False


def test_points_too_large_to_evaluate_are_undecided() -> None:
    # exp(exp(10^6)) would need 1.4 million bits in sympy and mpmath alike
    ev = evaluate_claim_at(claim("exp(exp(x)) >= 0"), {"x": 1e6})
    assert ev.holds is None and ev.status == "undecided" and "beyond" in ev.detail
    assert evaluate_claim_at(claim("exp(exp(x)) >= 0"), {"x": 5}).holds is True


def test_exact_values_beyond_float_range() -> None:
    c = claim("x <= 1e300*1e300")
    assert evaluate_claim_at(c, {"x": str(10**600 + 1)}).holds is False
    assert evaluate_claim_at(c, {"x": 10**600}).holds is True
    assert evaluate_claim_at(c, {"x": "1" * 20_000}).status == "outside"  # too long to read


def test_algebraic_values_are_exact() -> None:
    """A solver's irrational model (√2, a root of x^5 - x - 1) is decided exactly, and the text
    goes through the claim parser, never eval."""
    from eurekaclaw.verify.exact import to_exact

    on_12 = Claim(variables=[ClaimVariable(name="x", domain="interval", low=1, high=2)], conclusion="x^2 != 2")
    assert evaluate_claim_at(on_12, {"x": "sqrt(2)"}).holds is False
    assert evaluate_claim_at(on_12, {"x": "-sqrt(2)"}).status == "outside"
    quintic = Claim(variables=[ClaimVariable(name="x")], conclusion="x^5 - x - 1 != 0")
    assert evaluate_claim_at(quintic, {"x": "CRootOf(x^5 - x - 1, 0)"}).holds is False
    shifted = Claim(variables=[ClaimVariable(name="x")], conclusion="x^5 - x != 3/2")
    assert evaluate_claim_at(shifted, {"x": "CRootOf(x^5 - x - 1, 0)"}).holds is True
    for bad in ['__import__("os")', "x", "sqrt(-1)", "log(2)", "pi", "CRootOf(y^2 - 2, 0)"]:
        with pytest.raises(ValueError):
            to_exact(bad)
