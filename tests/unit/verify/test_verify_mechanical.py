"""run_mechanical_checks, mechanical_level, refuted, available_checkers and the public API."""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import shutil
import time

import pytest
from toolreq import require_tool

import eurekaclaw.verify as verify
from eurekaclaw.config import load_settings
from eurekaclaw.types.artifacts import CheckResult, Claim, ClaimVariable
from eurekaclaw.verify import available_checkers, mechanical_level, refuted, run_mechanical_checks

AMGM = Claim(
    variables=[ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")],
    conclusion="(a + b)/2 >= sqrt(a*b)",
)
FALSE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 >= x")
HALF = Claim(variables=[ClaimVariable(name="x", domain="positive")], conclusion="x/2 < x")
COQ_TRIVIAL = "reflexivity."  # proves 1 + 1 = 2 — and nothing a claim says


def test_public_names() -> None:
    assert set(verify.__all__) == {
        "ClaimError",
        "parse_claim",
        "evaluate_claim_at",
        "falsify",
        "smt_check",
        "coq_check_claim",
        "lean_check_claim",
        "CoqUntranslatable",
        "LeanUntranslatable",
        "run_mechanical_checks",
        "mechanical_level",
        "refuted",
        "available_checkers",
        "CheckerInfo",
        "ClaimEvaluation",
        "FalsifierReport",
        "ParsedClaim",
    }
    for name in verify.__all__:
        assert getattr(verify, name) is not None
    from eurekaclaw.verify.coq_statement import coq_statement
    from eurekaclaw.verify.lean_statement import lean_statement

    assert callable(coq_statement) and callable(lean_statement)


async def test_claim_checks_run_and_prove() -> None:
    checks = await run_mechanical_checks(AMGM, settings=load_settings(falsifier_budget_s=1.0, smt_timeout_s=5.0))
    by = {c.checker: c for c in checks}
    assert by["falsifier"].verdict == "passed"
    assert by["cvc5"].verdict == ("no_checker" if importlib.util.find_spec("cvc5") is None else by["cvc5"].verdict)
    if importlib.util.find_spec("z3") is not None:
        assert by["z3"].verdict == "passed"
        assert mechanical_level(checks) == "smt"
    assert refuted(checks) is None
    assert "coq" not in by  # no formal proof given, none checked


async def test_formal_proof_is_checked_against_the_claim() -> None:
    require_tool("coqc")
    settings = load_settings(falsifier_budget_s=0.5, smt_timeout_s=5.0)
    checks = await run_mechanical_checks(HALF, settings=settings, formal_proof="intros x Hx. lra.")
    coq = next(c for c in checks if c.checker == "coq")
    assert coq.verdict == "passed" and "x / 2 < x" in coq.detail
    assert mechanical_level(checks) == "formal"
    helpers = "Lemma half_lt (x : R) : 0 < x -> x / 2 < x. Proof. intros. lra. Qed."
    checks = await run_mechanical_checks(
        HALF, settings=settings, formal_proof="exact half_lt.", formal_helpers=helpers, formal_system="coq"
    )
    assert next(c for c in checks if c.checker == "coq").verdict == "passed"


async def test_refuted_claim_is_never_proven_whatever_the_formal_proof() -> None:
    checks = await run_mechanical_checks(FALSE, formal_proof=COQ_TRIVIAL, formal_system="coq")
    hit = refuted(checks)
    assert hit is not None and hit.counterexample is not None
    assert 0 < hit.counterexample["x"] < 1 or hit.checker == "z3"
    coq = next(c for c in checks if c.checker == "coq")
    assert coq.verdict != "passed"  # the proof is checked against x^2 >= x, which it does not prove
    assert mechanical_level(checks) is None


async def test_formal_proof_without_a_claim_checks_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    checks = await run_mechanical_checks(None, formal_proof=COQ_TRIVIAL)
    assert [(c.checker, c.verdict) for c in checks] == [("coq", "skipped")]
    assert checks[0].detail == "a formal proof without a claim checks nothing; ignored"
    assert mechanical_level(checks) is None
    checks = await run_mechanical_checks(None, formal_proof="trivial", formal_system="lean")
    assert [(c.checker, c.verdict) for c in checks] == [("lean", "skipped")]
    monkeypatch.setenv("PATH", str(tmp_path))
    checks = await run_mechanical_checks(
        HALF, formal_proof="intros x Hx. lra.", formal_system="coq", settings=load_settings(falsifier_budget_s=0.5)
    )
    assert next(c for c in checks if c.checker == "coq").verdict == "no_checker"
    checks = await run_mechanical_checks(
        HALF, formal_proof="intro x hx; linarith", formal_system="lean", settings=load_settings(falsifier_budget_s=0.5)
    )
    assert next(c for c in checks if c.checker == "lean").verdict == "no_checker"
    assert mechanical_level(checks) != "formal"  # (z3 may still prove the claim: "smt")


async def test_nothing_to_check_and_bad_claim() -> None:
    checks = await run_mechanical_checks(None)
    assert [(c.checker, c.verdict) for c in checks] == [("mechanical", "no_checker")]
    checks = await run_mechanical_checks(Claim(conclusion="y > 0"))
    assert [(c.checker, c.verdict) for c in checks] == [("claim", "error")]
    assert "unknown identifier" in checks[0].detail
    checks = await run_mechanical_checks(Claim(conclusion="y > 0"), formal_proof="lra.")
    assert [(c.checker, c.verdict) for c in checks] == [("claim", "error"), ("coq", "skipped")]
    checks = await run_mechanical_checks(
        HALF,
        formal_proof="lra.",
        formal_system="isabelle",  # type: ignore[arg-type]
        settings=load_settings(falsifier_budget_s=0.5),
    )
    assert any(c.checker == "formal" and c.verdict == "error" for c in checks)


async def test_checks_do_not_block_the_event_loop() -> None:
    # Waiting for every checker keeps the falsifier busy for its whole budget; were that work
    # done on the loop, the ticker would stall for about as long as the check took.
    claim = Claim(variables=[ClaimVariable(name="x")], conclusion="exp(x) >= 1 + x")
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    start = time.monotonic()
    settings = load_settings(falsifier_budget_s=0.5, smt_timeout_s=1.0)
    await run_mechanical_checks(claim, settings=settings, portfolio=False)
    elapsed = time.monotonic() - start
    task.cancel()
    assert elapsed >= 0.3, "the check should have used the falsifier's budget"
    marks = [start, *[t for t in ticks if t >= start], start + elapsed]
    longest_stall = max(b - a for a, b in itertools.pairwise(marks))
    assert longest_stall < elapsed / 2


def test_level_rules() -> None:
    passed = lambda name: CheckResult(checker=name, verdict="passed")  # noqa: E731
    assert mechanical_level([passed("falsifier")]) is None  # numeric evidence is never a level
    assert mechanical_level([passed("falsifier"), passed("z3")]) == "smt"
    assert mechanical_level([passed("z3"), passed("coq")]) == "formal"
    assert mechanical_level([CheckResult(checker="z3", verdict="unknown")]) is None
    wrong_proof = CheckResult(checker="coq", verdict="failed", detail="Error: ...")
    assert refuted([wrong_proof]) is None  # a failed proof is not a refutation of the claim
    cex = CheckResult(checker="falsifier", verdict="failed", counterexample={"x": 0.5})
    assert refuted([passed("z3"), cex]) is cex
    assert mechanical_level([passed("coq"), cex]) is None


def test_available_checkers() -> None:
    # one row per registered checker, under the name its results carry (the registry's list)
    infos = {c.name: c for c in available_checkers()}
    assert set(infos) == {"falsifier", "z3", "cvc5", "coq", "lean"}
    assert {n: c.kind for n, c in infos.items()} == {
        "falsifier": "numeric",
        "z3": "smt",
        "cvc5": "smt",
        "coq": "formal",
        "lean": "formal",
    }
    assert all(c.source == "built-in" and not c.problem for c in infos.values())
    assert infos["falsifier"].available and "sympy" in (infos["falsifier"].version or "")
    assert infos["z3"].available == (importlib.util.find_spec("z3") is not None)
    assert infos["coq"].available == (shutil.which("coqc") is not None)
    if infos["coq"].available:
        assert infos["coq"].version and infos["coq"].version[0].isdigit()
    assert infos["lean"].available == (shutil.which("lean") is not None and shutil.which("lake") is not None)
    assert all(isinstance(c.model_dump(), dict) for c in infos.values())
