"""The theory loop's door to the mechanical checkers in eurekaclaw.verify (falsifier, SMT,
Coq/Lean). When that layer is not installed the checks say so ("no_checker") and count as no
evidence either way; a checker that crashes says "error", which is no evidence either."""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from typing import Any

from eurekaclaw.config import Settings
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.types.artifacts import CheckResult, Claim, VerificationLevel

log = logging.getLogger(__name__)


def _verify() -> Any | None:
    try:
        import eurekaclaw.verify as verify
    except ImportError:
        return None
    needed = ("run_mechanical_checks", "mechanical_level", "refuted", "evaluate_claim_at")
    return verify if all(hasattr(verify, n) for n in needed) else None


def coq_available() -> bool:
    """Whether asking the prover for a Coq proof can pay off on this machine."""
    return _verify() is not None and shutil.which("coqc") is not None


async def run_checks(
    claim: Claim | None,
    *,
    settings: Settings,
    formal_source: str | None = None,
    formal_theorem: str | None = None,
    seed: int = 0,
) -> list[CheckResult]:
    if claim is None and not formal_source:
        return []
    verify = _verify()
    if verify is None:
        return [CheckResult(checker="mechanical", verdict="no_checker",
                            detail="eurekaclaw.verify is not installed")]
    try:
        return list(
            await verify.run_mechanical_checks(
                claim,
                settings=settings,
                formal_source=formal_source,
                formal_system="coq" if formal_source else None,
                theorem_name=formal_theorem if formal_source else None,
                seed=seed,
            )
        )
    except BudgetExceededError:
        raise
    except Exception as exc:  # a checker bug is reported as a check error, never as a pass
        log.warning("mechanical checks crashed: %s", exc, exc_info=True)
        return [CheckResult(checker="mechanical", verdict="error", detail=f"{type(exc).__name__}: {exc}")]


def strongest_level(checks: list[CheckResult]) -> VerificationLevel | None:
    """"formal" or "smt" when a checker proved the claim, else None."""
    if not checks:
        return None
    verify = _verify()
    if verify is None:
        return None
    level = verify.mechanical_level(checks)
    return level if level in ("formal", "smt") else None


def confirmed_refutation(checks: list[CheckResult]) -> CheckResult | None:
    if not checks:
        return None
    verify = _verify()
    return verify.refuted(checks) if verify is not None else None


def failed_checks(checks: list[CheckResult]) -> list[CheckResult]:
    return [c for c in checks if c.verdict == "failed"]


@dataclass
class Evaluation:
    holds: bool | None
    slack: float | None
    detail: str


def evaluate(claim: Claim, assignment: dict[str, float]) -> Evaluation | None:
    """The claim re-checked exactly at one assignment; None without the verification layer."""
    verify = _verify()
    if verify is None:
        return None
    try:
        ev = verify.evaluate_claim_at(claim, assignment)
    except Exception as exc:  # a bad proposal (unknown variable, out of domain) is no evidence
        return Evaluation(holds=None, slack=None, detail=f"{type(exc).__name__}: {exc}")
    return Evaluation(holds=ev.holds, slack=getattr(ev, "slack", None), detail=getattr(ev, "detail", ""))
