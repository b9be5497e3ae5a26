"""Attacks on the claim language: hidden definedness conditions, computer algebra inside the
trust base, solver models thrown away, and statements rendered so that they read differently.

Each test is one attack, made by a direct call; it asserts that the false or overstated result
never reaches the reader: the claim is refuted, or every condition a check relied on is shown.
"""

from __future__ import annotations

import importlib.util

import pytest

from eurekaclaw.config import load_settings
from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import mechanical_level, refuted, run_mechanical_checks
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.coq_statement import coq_statement
from eurekaclaw.verify.render import claim_latex, claim_plain

SETTINGS = load_settings(falsifier_budget_s=2.0, smt_timeout_s=5.0)
HAS_Z3 = importlib.util.find_spec("z3") is not None


def _var(name: str, domain: str = "real", **kw: object) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)  # type: ignore[arg-type]


async def _never_smt(claim: Claim) -> None:
    """The claim is false at x = 0: it must be refuted, or at least never reach smt/formal."""
    checks = await run_mechanical_checks(claim, settings=SETTINGS)
    assert mechanical_level(checks) is None, [(c.checker, c.verdict, c.detail) for c in checks]
    hit = refuted(checks)
    assert hit is not None and hit.counterexample is not None
    assert float(hit.counterexample["x"]) == 0.0
    assert not parse_claim(claim).definedness  # nothing hidden excludes x = 0


async def test_power_sum_over_index_range_is_not_narrowed_to_nonzero_x() -> None:
    """Attack: Σ_{k=1}^{n} x^k > 0 for x >= 0; a hidden x != 0 (exponent k of 'unknown sign')
    made it reach smt although it is false at x = 0."""
    claim = Claim(
        variables=[_var("x", "nonnegative"), _var("n", "integer", low=1, high=20)],
        conclusion="Sum(x^k, (k, 1, n)) > 0",
    )
    await _never_smt(claim)


async def test_power_with_difference_exponent_uses_the_assumption() -> None:
    """Attack: x^(m - n) > 0 with m >= n + 1; the exponent's sign follows from the assumption,
    so no x != 0 may be added, and the claim is refuted at x = 0."""
    claim = Claim(
        variables=[_var("x", "nonnegative"), _var("m", "integer", low=0, high=9), _var("n", "integer", low=0, high=9)],
        assumptions=["m >= n + 1"],
        conclusion="x^(m - n) > 0",
    )
    await _never_smt(claim)


async def test_real_power_with_positive_exponent_is_refuted_at_zero() -> None:
    """Attack: x^y > 0 with y > 0 (real); the parser used to add x > 0."""
    claim = Claim(
        variables=[_var("x", "nonnegative", high=4), _var("y", "positive", high=3)],
        conclusion="x^y > 0",
    )
    await _never_smt(claim)


def test_a_condition_still_needed_is_shown_everywhere() -> None:
    """Attack: x^y > 0 over all reals x and y > 0 needs x >= 0; that condition must be in the
    claim's definedness list, in the rendered statement and in the Coq statement — never hidden."""
    claim = Claim(variables=[_var("x"), _var("y", "positive")], conclusion="x^y >= 0")
    parsed = parse_claim(claim)
    assert [(r.op, str(r.lhs)) for r in parsed.definedness] == [(">=", "x")]
    assert "x ≥ 0" in claim_plain(claim) and "defined" in claim_plain(claim)
    assert r"x \ge 0" in claim_latex(claim)


def test_denominator_condition_is_shown_in_the_statement() -> None:
    """Attack: 1/x * x == 1 is checked only where x != 0; the reader must see 'x ≠ 0'."""
    claim = Claim(variables=[_var("x")], conclusion="(1/x)*x == 1")
    assert "x ≠ 0" in claim_plain(claim)
    assert r"x \ne 0" in claim_latex(claim)


def test_sum_index_condition_cannot_be_dropped() -> None:
    """Attack: Σ_{k=1}^{n} 1/(k - 2) is undefined for n >= 2; Coq's 1/0 = 0 would read it as a
    number. The claim is refused rather than checked without the condition."""
    from eurekaclaw.verify.grammar import ClaimError

    claim = Claim(variables=[_var("n", "integer", low=1)], conclusion="Sum(1/(k - 2), (k, 1, n)) <= n")
    with pytest.raises(ClaimError, match="every index"):
        parse_claim(claim)


def test_telescoping_sum_reaches_coq_as_a_sum() -> None:
    """Attack: a sum replaced by sympy's closed form made the telescoping lemma's Coq statement
    `1 - 1/INR n = 1 - 1/INR n`, proved by reflexivity. The statement must keep the sum."""
    claim = Claim(
        variables=[_var("n", "integer", low=1)],
        conclusion="Sum(1/(k*(k+1)), (k, 1, n)) == 1 - 1/(n+1)",
    )
    statement = coq_statement(claim)
    assert "sum_f_R0" in statement
    parsed = parse_claim(claim)
    assert "Sum" in type(parsed.conclusion[0].lhs).__name__


async def test_closed_form_identity_is_not_proved_by_smt_through_computer_algebra() -> None:
    """Attack: the same telescoping identity reached smt because Z3 saw `a = a` after sympy
    closed the sum. A sum with a symbolic bound and no sourced axiom is untranslatable."""
    claim = Claim(
        variables=[_var("n", "integer", low=1)],
        conclusion="Sum(1/(k*(k+1)), (k, 1, n)) == 1 - 1/(n+1)",
    )
    checks = await run_mechanical_checks(claim, settings=SETTINGS)
    assert mechanical_level(checks) is None
    by = {c.checker: c for c in checks}
    if HAS_Z3:
        assert by["z3"].verdict != "passed"
    assert by["falsifier"].verdict != "failed"  # it is true; the falsifier must still run


def test_axiom_instance_is_cited_not_smt() -> None:
    """Attack: Σ 1/k² <= 2 - 1/n is the integral-bound axiom Z3 is given; proving it 'by smt'
    would certify an axiom with itself. It is an axiom instance."""
    from eurekaclaw.verify.axiom_sources import axiom_instance

    claim = Claim(variables=[_var("n", "integer", low=1)], conclusion="Sum(1/k^2, (k, 1, n)) <= 2 - 1/n")
    found = axiom_instance(claim)
    assert found is not None and "integral" in found.lower()
    assert axiom_instance(Claim(variables=[_var("x", "positive")], conclusion="log(x) <= x - 1")) is not None
    assert axiom_instance(Claim(variables=[_var("x")], conclusion="x^2 - 2*x + 1 >= 0")) is None


def test_axiom_instance_lemma_level_is_cited() -> None:
    """Attack: a lemma whose claim is the solver's own axiom (log x <= x - 1) and which Z3
    'proved' must be recorded at `cited` (the axiom's source), not `smt`."""
    from eurekaclaw.agents.theory.level import decide_level
    from eurekaclaw.types.artifacts import CheckResult, LemmaNode

    claim = Claim(variables=[_var("x", "positive")], conclusion="log(x) <= x - 1")
    node = LemmaNode(id="L", statement="s", claim=claim, statement_source="claim")
    verdict = decide_level(node, [CheckResult(checker="z3", verdict="passed")])
    assert verdict.level == "cited" and "log-tangent" in verdict.note
    real_work = Claim(variables=[_var("x")], conclusion="x^2 - 2*x + 1 >= 0")
    node = LemmaNode(id="M", statement="s", claim=real_work, statement_source="claim")
    assert decide_level(node, [CheckResult(checker="z3", verdict="passed")]).level == "smt"


@pytest.mark.skipif(not HAS_Z3, reason="z3 not installed")
def test_irrational_solver_model_is_kept() -> None:
    """Attack: x^2 != 2 on [1, 2] is false at √2, but Z3's algebraic model was thrown away by a
    rational-only re-check (and a forged Coq proof took the claim to formal)."""
    from eurekaclaw.verify.smt import smt_check

    claim = Claim(variables=[_var("x", "interval", low=1, high=2)], conclusion="x^2 != 2")
    result = smt_check(claim, timeout_s=10.0, solver="z3")
    assert result.verdict == "failed", result.detail
    assert result.counterexample is not None and "sqrt(2)" in str(result.counterexample["x"])


def test_unit_fraction_never_renders_as_a_mixed_number() -> None:
    """Attack (careless, not hostile): 1/k^2 rendered `1 \\frac{1}{k^{2}}` reads as 1¹⁄ₖ²."""
    claim = Claim(variables=[_var("n", "integer", low=1)], conclusion="Sum(1/k^2, (k, 1, n)) <= 2 - 1/n")
    latex = claim_latex(claim)
    assert r"1 \frac" not in latex and r"\frac{1}{k^{2}}" in latex


async def test_false_basel_bound_is_refuted_and_shifted_sum_earns_nothing() -> None:
    """Attack (careless model, #26): the FALSE Σ_{k=1}^{n} 1/k² <= 1.6 (fails from n = 22) is
    refuted, and its true k = 2 variant — which reached smt through sympy's closed form — now
    has no solver proof at all (no sourced axiom covers a sum from k = 2)."""
    nat = [_var("n", "natural", low=1)]
    false = Claim(variables=nat, conclusion="Sum(1/k^2, (k, 1, n)) <= 1.6")
    checks = await run_mechanical_checks(false, settings=SETTINGS)
    hit = refuted(checks)
    assert hit is not None and hit.counterexample is not None and int(hit.counterexample["n"]) >= 22
    shifted = Claim(variables=nat, conclusion="Sum(1/k^2, (k, 2, n)) <= 1.6")
    checks = await run_mechanical_checks(shifted, settings=SETTINGS)
    assert mechanical_level(checks) is None
