"""Attacks on the claim-check portfolio and its session cache (verify/portfolio.py): a fast
lying solver, an unconfirmed model, a look-alike claim, a caller that edits cached results."""

from __future__ import annotations

from typing import Any

import pytest

from eurekaclaw.config import load_settings
from eurekaclaw.line_worker import Cancel
from eurekaclaw.types.artifacts import CheckResult, Claim, ClaimVariable
from eurekaclaw.verify import mechanical_level, refuted, run_mechanical_checks
from eurekaclaw.verify import portfolio as pf
from eurekaclaw.verify.portfolio import check_claim, claim_check_session

SETTINGS = load_settings(falsifier_budget_s=1.0, smt_timeout_s=5.0)
AMGM_POS = Claim(
    variables=[ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")],
    conclusion="(a + b)/2 >= sqrt(a*b)",
)
# Same text over the reals, with a*b >= 0 assumed: false at a = b = -1.
AMGM_REALS = Claim(
    variables=[ClaimVariable(name="a"), ClaimVariable(name="b")],
    assumptions=["a*b >= 0"],
    conclusion="(a + b)/2 >= sqrt(a*b)",
)
FALSE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 >= x")


def solvers(monkeypatch: pytest.MonkeyPatch, answers: dict[str, CheckResult]) -> list[str]:
    calls: list[str] = []

    def smt_check(claim: Claim, *, timeout_s: float, solver: str, cancel: Cancel | None = None) -> CheckResult:
        calls.append(solver)
        return answers[solver].model_copy()

    monkeypatch.setattr(pf, "smt_check", smt_check)
    return calls


async def test_a_fast_lying_proof_does_not_silence_the_falsifier(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a solver (or a broken translation) "proves" a false claim instantly, hoping the
    portfolio stops every other checker on the first decisive answer."""
    solvers(monkeypatch, {"z3": CheckResult(checker="z3", verdict="passed", detail="proved (a lie)")})
    checks = await check_claim(FALSE, budget_s=1.0, solvers=("z3",))
    assert refuted(checks) is not None
    assert mechanical_level(checks) is None
    assert any(c.checker == "mechanical" and "disagree" in c.detail for c in checks)


async def test_an_unconfirmed_failure_stops_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a solver answers "failed" with no confirmed counterexample, first, hoping to be
    taken as a decisive refutation that cancels the other solver's proof."""
    seen: list[bool] = []

    def slow_honest(claim: Claim, *, timeout_s: float, solver: str, cancel: Cancel | None = None) -> CheckResult:
        seen.append(cancel is not None and cancel.is_set())
        return CheckResult(checker=solver, verdict="passed", detail="proved")

    def fake(claim: Claim, *, timeout_s: float, solver: str, cancel: Cancel | None = None) -> CheckResult:
        if solver == "z3":
            return CheckResult(checker="z3", verdict="failed", detail="no model given")
        return slow_honest(claim, timeout_s=timeout_s, solver=solver, cancel=cancel)

    monkeypatch.setattr(pf, "smt_check", fake)
    checks = await check_claim(AMGM_POS, budget_s=0.5, solvers=("z3", "cvc5"))
    assert not pf.decisive(checks[1])
    assert refuted(checks) is None and seen == [False]
    assert next(c for c in checks if c.checker == "cvc5").verdict == "passed"


async def test_a_look_alike_claim_does_not_reuse_a_cached_proof() -> None:
    """Attack: state a claim proved earlier in the session again with a weaker domain (same
    conclusion text), hoping the cache answers with the earlier proof."""
    with claim_check_session() as cache:
        first = await run_mechanical_checks(AMGM_POS, settings=SETTINGS)
        second = await run_mechanical_checks(AMGM_REALS, settings=SETTINGS)
    assert refuted(first) is None
    assert refuted(second) is not None and mechanical_level(second) is None
    assert cache.hits == 0


async def test_editing_returned_checks_does_not_change_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack: a careless caller rewrites a refutation it was given into a pass; the next
    identical check in the session must still see the refutation."""
    calls = solvers(monkeypatch, {"z3": CheckResult(checker="z3", verdict="unknown", detail="gave up")})
    with claim_check_session() as cache:
        checks = await check_claim(FALSE, budget_s=1.0, solvers=("z3",), cache=cache)
        hit: Any = refuted(checks)
        assert hit is not None
        hit.verdict, hit.counterexample = "passed", None
        again = await check_claim(FALSE, budget_s=1.0, solvers=("z3",), cache=cache)
    assert refuted(again) is not None
    assert calls == ["z3"]
