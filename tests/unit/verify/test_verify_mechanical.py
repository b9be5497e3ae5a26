"""run_mechanical_checks, mechanical_level, refuted, available_checkers and the public API."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil

import pytest

import eurekaclaw.verify as verify
from eurekaclaw.config import load_settings
from eurekaclaw.types.artifacts import CheckResult, Claim, ClaimVariable
from eurekaclaw.verify import available_checkers, mechanical_level, refuted, run_mechanical_checks

AMGM = Claim(variables=[ClaimVariable(name="a", domain="positive"), ClaimVariable(name="b", domain="positive")],
             conclusion="(a + b)/2 >= sqrt(a*b)")
FALSE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 >= x")
COQ_OK = "Lemma t : 1 + 1 = 2. Proof. reflexivity. Qed.\n"


def test_public_names() -> None:
    assert set(verify.__all__) == {
        "ClaimError", "parse_claim", "evaluate_claim_at", "falsify", "smt_check", "coq_check", "lean_check",
        "run_mechanical_checks", "mechanical_level", "refuted", "available_checkers", "CheckerInfo",
        "ClaimEvaluation", "FalsifierReport", "ParsedClaim",
    }
    for name in verify.__all__:
        assert getattr(verify, name) is not None


async def test_claim_checks_run_and_prove() -> None:
    checks = await run_mechanical_checks(AMGM, settings=load_settings(falsifier_budget_s=1.0, smt_timeout_s=5.0))
    by = {c.checker: c for c in checks}
    assert by["falsifier"].verdict == "passed"
    assert by["cvc5"].verdict == ("no_checker" if importlib.util.find_spec("cvc5") is None else by["cvc5"].verdict)
    if importlib.util.find_spec("z3") is not None:
        assert by["z3"].verdict == "passed"
        assert mechanical_level(checks) == "smt"
    assert refuted(checks) is None


async def test_refuted_claim_is_never_proven_even_with_a_passing_formal_proof() -> None:
    checks = await run_mechanical_checks(FALSE, formal_source=COQ_OK, formal_system="coq")
    hit = refuted(checks)
    assert hit is not None and hit.counterexample is not None
    assert 0 < hit.counterexample["x"] < 1 or hit.checker == "z3"
    assert mechanical_level(checks) is None  # whatever coq said


async def test_formal_only_and_missing_checker(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    checks = await run_mechanical_checks(None, formal_source=COQ_OK)  # system guessed from "Qed."
    assert [c.checker for c in checks] == ["coq"]
    if shutil.which("coqc"):
        assert checks[0].verdict == "passed" and mechanical_level(checks) == "formal"
    monkeypatch.setenv("PATH", str(tmp_path))
    checks = await run_mechanical_checks(None, formal_source=COQ_OK, formal_system="coq")
    assert checks[0].verdict == "no_checker" and mechanical_level(checks) is None
    checks = await run_mechanical_checks(None, formal_source="theorem t : True := trivial", formal_system="lean")
    assert checks[0].checker == "lean" and checks[0].verdict == "no_checker"


async def test_nothing_to_check_and_bad_claim() -> None:
    checks = await run_mechanical_checks(None)
    assert [(c.checker, c.verdict) for c in checks] == [("mechanical", "no_checker")]
    checks = await run_mechanical_checks(Claim(conclusion="y > 0"))
    assert [(c.checker, c.verdict) for c in checks] == [("claim", "error")]
    assert "unknown identifier" in checks[0].detail
    checks = await run_mechanical_checks(None, formal_source="some prose, not a proof")
    assert checks[0].verdict == "error"


async def test_checks_do_not_block_the_event_loop() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    await run_mechanical_checks(AMGM, settings=load_settings(falsifier_budget_s=1.0))
    task.cancel()
    assert ticks >= 2


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
    infos = {c.name: c for c in available_checkers()}
    assert set(infos) == {"falsifier", "z3", "cvc5", "coqc", "lean", "lake"}
    assert infos["falsifier"].available and "sympy" in (infos["falsifier"].version or "")
    assert infos["z3"].available == (importlib.util.find_spec("z3") is not None)
    assert infos["coqc"].available == (shutil.which("coqc") is not None)
    if infos["coqc"].available:
        assert infos["coqc"].version and infos["coqc"].version[0].isdigit()
    assert infos["lean"].available == (shutil.which("lean") is not None)
    assert all(isinstance(c.model_dump(), dict) for c in infos.values())
