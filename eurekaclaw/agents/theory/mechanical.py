"""The theory loop's door to the mechanical checkers in eurekaclaw.verify (falsifier, SMT,
Coq/Lean). What their results are worth for a lemma's level is decided in level.py. A formal
proof is checked only against the statement the project generated from the claim; without a
claim it checks nothing and is ignored. A checker that crashes says "error", which is no evidence
either way.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass

from eurekaclaw.config import Settings
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.types.artifacts import (
    CheckResult,
    Claim,
    Counterexample,
)

log = logging.getLogger(__name__)


def level_checker_names() -> dict[str, str]:
    """Display names of the registered checkers whose proof can be a level (formal, smt),
    third-party checkers included."""
    from eurekaclaw.verify.checker import LEVEL_KINDS
    from eurekaclaw.verify.registry import checker_names

    return checker_names(LEVEL_KINDS)


def coq_available() -> bool:
    """Whether asking the prover for a Coq proof can pay off on this machine."""
    return shutil.which("coqc") is not None


def coq_statement_for(claim: Claim | None) -> str | None:
    """The Coq statement the project checks a proof of `claim` against; None when the claim
    has no faithful Coq translation (then no formal proof is asked for)."""
    if claim is None:
        return None
    from eurekaclaw.verify.coq_statement import coq_statement

    try:
        return coq_statement(claim)
    except Exception as exc:  # untranslatable (or a translator bug): no formal route
        log.info("no Coq statement for %r: %s", claim.conclusion, exc)
        return None


async def run_checks(
    claim: Claim | None,
    *,
    settings: Settings,
    formal_proof: str | None = None,
    formal_helpers: str | None = None,
    seed: int = 0,
) -> list[CheckResult]:
    if claim is None:
        if formal_proof and formal_proof.strip():
            return [
                CheckResult(
                    checker="coq", verdict="skipped", detail="a formal proof without a claim checks nothing; ignored"
                )
            ]
        return []
    from eurekaclaw.verify import run_mechanical_checks
    from eurekaclaw.verify.limits import CheckLimits

    try:
        return list(
            await run_mechanical_checks(
                claim,
                limits=CheckLimits.from_settings(settings),
                formal_proof=formal_proof if formal_proof and formal_proof.strip() else None,
                formal_helpers=formal_helpers,
                formal_system="coq" if formal_proof else None,
                seed=seed,
            )
        )
    except BudgetExceededError:
        raise
    except Exception as exc:  # a checker bug is reported as a check error, never as a pass
        log.warning("mechanical checks crashed: %s", exc, exc_info=True)
        return [CheckResult(checker="mechanical", verdict="error", detail=f"{type(exc).__name__}: {exc}")]


def confirmed_refutation(checks: list[CheckResult]) -> CheckResult | None:
    if not checks:
        return None
    from eurekaclaw.verify import refuted

    return refuted(checks)


def failed_checks(checks: list[CheckResult]) -> list[CheckResult]:
    return [c for c in checks if c.verdict == "failed"]


@dataclass
class Evaluation:
    holds: bool | None
    slack: float | None
    detail: str


def evaluate(claim: Claim, assignment: dict[str, float]) -> Evaluation:
    """The claim re-checked exactly at one assignment."""
    from eurekaclaw.verify import evaluate_claim_at

    try:
        ev = evaluate_claim_at(claim, assignment)
    except Exception as exc:  # a bad proposal (unknown variable, out of domain) is no evidence
        return Evaluation(holds=None, slack=None, detail=f"{type(exc).__name__}: {exc}")
    return Evaluation(holds=ev.holds, slack=ev.slack, detail=ev.detail)


def stored_refutation(lemma_id: str, claim: Claim | None, known: list[Counterexample]) -> Counterexample | None:
    """A counterexample found earlier in the session (for any lemma) that refutes this claim
    too: the claim fails there exactly, under its own variable names or renamed to the stored
    ones, or it is a refuted claim with its variables renamed (verify/claim_match.py). Values
    are numbers, so a point that violates the claim refutes it whoever found it."""
    if claim is None:
        return None
    from eurekaclaw.verify.claim_match import refuted_by

    try:
        match = refuted_by(claim, known)
    except Exception as exc:  # a matcher bug is no evidence either way: the claim is checked as usual
        log.warning("comparing %r with the stored refutations failed: %s", claim.conclusion, exc, exc_info=True)
        return None
    if match is None:
        return None
    cx = match.counterexample
    ev = evaluate(claim, match.assignment) if match.assignment else None
    return Counterexample(
        lemma_id=lemma_id,
        assignment=dict(match.assignment),
        description=f"{match.detail} (the counterexample found earlier for lemma {cx.lemma_id})",
        checker="session_counterexample+exact_evaluation" if match.how != "same_claim" else "refuted_claim_renamed",
        confirmed=True,
        violation=ev.slack if ev is not None and ev.holds is False else cx.violation,
    )
