"""SMT reach for log, exp, symbolic powers, pi/e and finite sums (smt_axioms.py).

Soundness first: every axiom is checked against the true functions (the fresh variables given
their true values at many points must satisfy every axiom), no false claim of the table ever
passes and each is refuted by the falsifier or the solver, no true claim is ever refuted. Then
reach: most true claims of the table are proved.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy as sp
from claim_table import Case, claim
from toolreq import require_module
from transcendental_table import FALSE, TRUE

from eurekaclaw.types.artifacts import Claim
from eurekaclaw.verify import evaluate_claim_at, falsify, smt_check
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.smt_axioms import _bracket, zeta_upper

SMT_TIMEOUT = 3.0


@pytest.fixture(autouse=True)
def _z3() -> None:
    require_module("z3")


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------


def test_table_size() -> None:
    assert len(TRUE) >= 40 and len(FALSE) >= 25
    assert len({c.id for c in TRUE + FALSE}) == len(TRUE + FALSE)


@pytest.mark.parametrize("case", FALSE, ids=lambda c: c.id)
def test_false_claim_never_passes_and_is_refuted(case: Case) -> None:
    smt = smt_check(case.claim, timeout_s=SMT_TIMEOUT)
    assert smt.verdict != "passed", smt.detail
    report = falsify(case.claim, seed=0)
    found = [p for p in (report.counterexample, smt.counterexample) if p is not None]
    assert found, f"no counterexample: falsifier: {report.detail} | z3: {smt.detail}"
    assert all(evaluate_claim_at(case.claim, p).holds is False for p in found)


@pytest.mark.parametrize("case", TRUE, ids=lambda c: c.id)
def test_true_claim_is_never_refuted(case: Case) -> None:
    smt = smt_check(case.claim, timeout_s=SMT_TIMEOUT)
    assert smt.verdict in ("passed", "unknown") and smt.counterexample is None, smt.detail
    assert not falsify(case.claim, seed=0).confirmed


def test_most_true_claims_reach_smt() -> None:
    """The measured figure is in docs/benchmarks.md; the floor here leaves room for a loaded
    machine (a solver timeout is `unknown`)."""
    passed = [c.id for c in TRUE if smt_check(c.claim, timeout_s=SMT_TIMEOUT).verdict == "passed"]
    assert len(passed) >= 0.75 * len(TRUE), sorted({c.id for c in TRUE} - set(passed))


# --------------------------------------------------------------------------------------------
# every axiom holds for the true functions
# --------------------------------------------------------------------------------------------


def _axioms_hold_at(c: Claim, point: dict[str, object]) -> None:
    """Give the claim's variables `point` and every fresh transcendental variable a box of
    width 1e-20 around its true value (unconstrained where the term is undefined): the
    axioms must be satisfiable — a false axiom makes this unsat."""
    import z3

    from eurekaclaw.verify.smt_translate import Translator

    parsed = parse_claim(c)
    tr = Translator(z3, parsed)
    tr.premises(partial=True)
    tr.negated_conclusion()
    tr.finish()
    s = z3.Solver()
    s.set("timeout", 20000)
    s.add(*tr.defs)
    subs = {}
    for name, value in point.items():
        sym = parsed.symbols[name]
        s.add(tr.vars[name] == z3.RealVal(str(sp.Rational(str(value)))))
        subs[sym] = sp.Rational(str(value))
    for var, meaning in tr.ax.meaning:
        if not _defined(meaning, subs):
            continue  # the term is undefined here: its variable may take any value
        value = sp.N(meaning.xreplace(subs).doit(), 40)
        if not value.is_real or not value.is_finite or value.has(sp.zoo, sp.nan):
            continue
        r = sp.Rational(str(value))
        eps = sp.Rational(1, 10**20) * (1 + abs(r))
        s.add(var >= z3.RealVal(str(r - eps)), var <= z3.RealVal(str(r + eps)))
    assert s.check() == z3.sat, f"an axiom fails at {point} for {c.conclusion}"


def _defined(term: sp.Basic, subs: dict) -> bool:
    """Whether every log argument and fractional-power base in `term` is in range at the point;
    sympy would happily evaluate exp(log(-1)) to -1."""
    for node in sp.preorder_traversal(term):
        if isinstance(node, sp.Sum):
            return True  # its bounds are checked by the claim's own conditions
        if isinstance(node, sp.log) and not sp.N(node.args[0].xreplace(subs), 30) > 0:
            return False
        if isinstance(node, sp.Pow) and not node.exp.is_integer and not sp.N(node.base.xreplace(subs), 30) >= 0:
            return False
    return True


AXIOM_CLAIMS = [
    # log: bounds, sign, monotonicity between terms, product/quotient/power decomposition
    (
        claim("log(x) + log(x + 1) + log(2*x) + log(x^2*y) + log(x/y) <= 100", x="real", y="real"),
        [{"x": x, "y": y} for x, y in itertools.product(["1/3", 1, 2, 7, "-1/2"], ["1/2", 3, -2])],
    ),
    # log of a constant (bracketed), log with a root in the claim (√t bounds)
    (claim("log(3)*log(x) <= sqrt(x) + log(1/7)", x="positive"), [{"x": x} for x in ["1/10", 1, 2, 50]]),
    # exp: bounds, monotonicity, products, exp/log links, constants
    (
        claim(
            "exp(x) + exp(-x) + exp(2*x) + exp(x + y) + exp(y) + exp(log(y)) + log(exp(x)) + exp(3) + e + pi >= 0",
            x="real",
            y="real",
        ),
        [{"x": x, "y": y} for x, y in itertools.product(["-5/2", 0, "1/3", 1, 4], ["1/2", 2, -1])],
    ),
    # powers with a symbolic exponent: 2^n, (1/2)^n, a variable base
    (
        claim("2^(n + 1) + 2^n + (1/2)^n + x^n + x^(y/2) >= 0", n="natural", x="positive", y="real"),
        [{"n": n, "x": x, "y": y} for n, x, y in itertools.product([0, 1, 5], ["1/2", 3], [-1, 2])],
    ),
    # harmonic numbers (sums sympy closes) and a power sum it leaves open
    (
        claim(
            "Sum(1/k, (k, 1, n)) + Sum(1/k, (k, 1, n + 1)) + Sum(1/k^2, (k, 1, n)) + Sum(1/k^3, (k, 1, n)) "
            "+ Sum(1/sqrt(k), (k, 1, n)) + Sum(sqrt(k), (k, 1, n)) >= 0",
            n="natural",
        ),
        [{"n": n} for n in [0, 1, 2, 3, 10, 40]],
    ),
    # a sum with a few concrete terms is its definition, f(a) + ... + f(b)
    (
        claim("Sum(r^k/k, (k, 1, 4)) + Sum(1/k^2, (k, 1, n)) >= 0", n="natural", r="positive"),
        [{"n": n, "r": r} for n, r in itertools.product([0, 1, 4], ["1/2", 1, 3])],
    ),
]


@pytest.mark.parametrize(
    ("c", "points"), AXIOM_CLAIMS, ids=["log", "log_const_root", "exp", "powers", "sums", "concrete_sum"]
)
def test_axioms_hold_for_the_true_functions(c: Claim, points: list[dict[str, object]]) -> None:
    for point in points:
        _axioms_hold_at(c, point)


def test_brackets_are_rigorous_and_tight() -> None:
    lo, hi = _bracket("pi")
    assert Fraction("3.14159265") < lo < Fraction(314159266, 10**8) and hi - lo < Fraction(1, 10**25)
    for kind, arg, exact in [
        ("log", sp.Rational(2), sp.log(2)),
        ("log", sp.Rational(1, 3), sp.log(sp.Rational(1, 3))),
        ("exp", sp.Integer(1), sp.E),
        ("exp", sp.Rational(-7, 2), sp.exp(sp.Rational(-7, 2))),
    ]:
        lo, hi = _bracket(kind, arg)
        value = sp.Rational(str(sp.N(exact, 60)))
        assert lo < value < hi and hi - lo < Fraction(1, 10**25), (kind, arg)
    assert Fraction("1.2020569031595942853997") < zeta_upper(sp.Integer(3)) < Fraction("1.2020569031595943")


# --------------------------------------------------------------------------------------------
# each family proves what it should, and nothing more
# --------------------------------------------------------------------------------------------

PROVED = [
    ("log_upper", claim("log(x) <= x - 1", x="positive")),
    ("log_lower", claim("log(x)*x >= x - 1", x="positive")),
    ("log_sign", claim("log(x) < 0", "x < 1", x="positive")),
    ("log_monotone", claim("log(x + 1) > log(x)", x="positive")),
    ("log_product_positive", claim("log(a*b) == log(a) + log(b)", a="positive", b="positive")),
    ("log_power", claim("log(x^3) == 3*log(x)", x="positive")),
    ("log_constant", claim("log(2) < 7/10 + 0*x")),
    ("exp_lower", claim("exp(x) >= 1 + x")),
    ("exp_upper", claim("exp(x)*(1 - x) <= 1", "x < 1")),
    ("exp_monotone", claim("exp(x) < exp(y)", "x < y", x="real", y="real")),
    ("exp_product", claim("exp(x)*exp(-x) == 1")),
    ("exp_log", claim("exp(-log(x)) == 1/x", x="positive")),
    ("log_exp", claim("log(exp(x)) == x")),
    ("exp_log_monotone", claim("exp(u) <= t", "u <= log(t)", u="real", t="positive")),
    ("pi_bracket", claim("pi*x^2 <= 315/100*x^2")),
    ("e_power", claim("e^x >= 1 + x")),
    ("power_shift", claim("2^(n + 2) == 4*2^n", n="natural")),
    ("power_variable_base", claim("x^y > 0", x="positive", y="real")),
    ("harmonic_log", claim("Sum(1/k, (k, 1, n)) <= 1 + log(n)", n="natural")),
    ("harmonic_step", claim("Sum(1/k, (k, 1, n + 1)) == Sum(1/k, (k, 1, n)) + 1/(n + 1)", n="natural")),
    ("basel", claim("Sum(1/k^2, (k, 1, n)) < pi^2/6", n="natural")),
    ("power_sum", claim("Sum(sqrt(k), (k, 1, n)) <= (2/3)*(n + 1)^(3/2)", n="natural")),
]

# Claims that are false or only true under a condition the encoding must not assume.
NOT_PROVED = [
    ("log_product_over_reals", claim("log(x*y) >= log(x)", x="real", y="real")),
    ("log_split_needs_positive_factors", claim("log(x*y) == log(-x) + log(-y) + 1/10", x="real", y="real")),
    ("exp_upper_everywhere", claim("exp(x)*(1 - x/2) <= 1", "x < 2")),
    ("power_base_sign", claim("x^n > 0", x="real", n="natural")),
    ("harmonic_too_tight", claim("Sum(1/k, (k, 1, n)) <= 1/2 + log(n)", n="natural")),
    ("basel_below_pi_bound", claim("Sum(1/k^2, (k, 1, n)) <= 164/100", n="natural")),
    ("pi_too_small", claim("pi*x^2 <= 314/100*x^2")),
]


@pytest.mark.parametrize(("case_id", "c"), PROVED, ids=[p[0] for p in PROVED])
def test_family_proves(case_id: str, c: Claim) -> None:
    result = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert result.verdict == "passed", result.detail


@pytest.mark.parametrize(("case_id", "c"), NOT_PROVED, ids=[p[0] for p in NOT_PROVED])
def test_family_does_not_overreach(case_id: str, c: Claim) -> None:
    result = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert result.verdict != "passed", result.detail
    if result.counterexample is not None:
        assert evaluate_claim_at(c, result.counterexample).holds is False


def test_sum_without_a_sourced_axiom_is_not_translated() -> None:
    """A geometric sum used to reach Z3 as sympy's piecewise closed form, so Z3 'proved' what
    only the computer algebra had computed. The sum as written has no sourced axiom: unknown."""
    result = smt_check(claim("Sum((1/3)^k, (k, 0, n)) <= 3/2", n="natural"), timeout_s=SMT_TIMEOUT)
    assert result.verdict == "unknown" and "no SMT translation" in result.detail, result.detail
    identity = claim("Sum(k, (k, 1, n)) == n*(n + 1)/2", n="natural")
    assert smt_check(identity, timeout_s=SMT_TIMEOUT).verdict != "passed"


def test_relaxation_model_is_not_a_counterexample() -> None:
    """Under the axioms Z3 may find a model no real point realises; it is only a candidate."""
    c = claim("exp(-t) <= 1/(1 + t + t^2/2 + t^3/6 + t^4/24)", t="nonnegative")
    result = smt_check(c, timeout_s=SMT_TIMEOUT)
    assert result.verdict in ("passed", "unknown") and result.counterexample is None, result.detail


# --------------------------------------------------------------------------------------------
# cvc5 as a second solver
# --------------------------------------------------------------------------------------------


def test_cvc5_proves_and_never_passes_a_false_claim() -> None:
    require_module("cvc5", "python module cvc5 is not installed (pip install cvc5, the `cvc5` extra)")
    for case in TRUE[:3] + [t for t in TRUE if t.id in ("harmonic_upper", "log1p_le_x", "hoeffding_le_one")]:
        result = smt_check(case.claim, timeout_s=SMT_TIMEOUT, solver="cvc5")
        assert result.checker == "cvc5" and result.verdict in ("passed", "unknown"), result.detail
        assert result.counterexample is None
    assert smt_check(TRUE[0].claim, timeout_s=SMT_TIMEOUT, solver="cvc5").verdict == "passed"
    for case in FALSE:
        result = smt_check(case.claim, timeout_s=1.0, solver="cvc5")
        assert result.verdict != "passed", (case.id, result.detail)
