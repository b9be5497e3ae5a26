"""run_mechanical_checks: every machine check that applies to one lemma, concurrently, without
blocking the event loop; and the two questions the theory loop asks of the results —
how strong is the evidence (mechanical_level) and was the claim refuted (refuted). The claim's
own checks are a portfolio (portfolio.py): the first decisive answer stops the other solver, and
inside a `claim_check_session()` an identical claim is checked once.

Status invariant (DESIGN §3): a refuted claim is never recorded as proven, so
mechanical_level returns None whenever any check holds a confirmed counterexample.
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
from pathlib import Path
from typing import Any, Literal

from eurekaclaw.types.artifacts import CheckResult, Claim, VerificationLevel
from eurekaclaw.verify.coq import coq_check_claim
from eurekaclaw.verify.exact import parsed_for
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.lean import lean_check_claim
from eurekaclaw.verify.portfolio import ClaimCheckCache, check_claim, session_cache

FORMAL_CHECKERS = ("coq", "lean")
SMT_CHECKERS = ("z3", "cvc5")


def _setting(settings: Any, name: str, default: Any) -> Any:
    return getattr(settings, name, default) if settings is not None else default


async def run_mechanical_checks(
    claim: Claim | None,
    *,
    settings: Any = None,
    formal_proof: str | None = None,
    formal_helpers: str | None = None,
    formal_system: Literal["coq", "lean"] | None = None,
    seed: int = 0,
    portfolio: bool = True,
    cache: ClaimCheckCache | None = None,
) -> list[CheckResult]:
    """Falsifier + z3 (+ cvc5) on the claim and, when a formal proof is given, coqc or lean
    checking that proof against the statement generated from THE CLAIM (formal_system "coq" by
    default), all concurrently. `formal_proof` is the tactic script, `formal_helpers` optional
    lemmas placed before the theorem. Checkers that are not installed appear with verdict
    "no_checker"; an unparseable claim gives one "error" result from checker "claim"; a formal
    proof without a (parseable) claim checks nothing and is "skipped"; with nothing to check,
    one "no_checker". `portfolio=False` waits for every checker (the previous behaviour, kept
    for the benchmark); `cache` defaults to the session's (`claim_check_session()`), if any."""
    jobs: list[Any] = []
    results: list[CheckResult] = []
    system = formal_system or "coq"
    has_proof = formal_proof is not None and bool(formal_proof.strip())
    claim_ok = False
    if claim is not None:
        try:
            parsed_for(claim)
        except ClaimError as exc:
            results.append(CheckResult(checker="claim", verdict="error", detail=f"claim does not parse: {exc}"))
        else:
            claim_ok = True
            budget = float(_setting(settings, "falsifier_budget_s", 2.0))
            smt_timeout = float(_setting(settings, "smt_timeout_s", 10.0))
            cvc5 = importlib.util.find_spec("cvc5") is not None
            jobs.append(
                check_claim(
                    claim,
                    seed=seed,
                    budget_s=budget,
                    smt_timeout_s=smt_timeout,
                    solvers=SMT_CHECKERS if cvc5 else ("z3",),
                    portfolio=portfolio,
                    cache=cache if cache is not None else session_cache(),
                )
            )
            if not cvc5:
                results.append(
                    CheckResult(
                        checker="cvc5",
                        verdict="no_checker",
                        detail="optional second SMT opinion; the cvc5 Python module is not installed",
                    )
                )
    if has_proof and system not in FORMAL_CHECKERS:
        results.append(
            CheckResult(checker="formal", verdict="error", detail=f"unknown formal_system {system!r} (coq or lean)")
        )
    elif has_proof and claim is None:
        # The statement a proof is checked against comes from the claim; without one, a proof
        # could prove anything (`1 + 1 = 2`), so it is not evidence of anything.
        results.append(
            CheckResult(
                checker=system, verdict="skipped", detail="a formal proof without a claim checks nothing; ignored"
            )
        )
    elif has_proof and not claim_ok:
        results.append(
            CheckResult(
                checker=system,
                verdict="skipped",
                detail="the claim does not parse, so there is no statement to check the formal proof against",
            )
        )
    elif has_proof:
        assert claim is not None and formal_proof is not None
        timeout = float(_setting(settings, "formal_timeout_s", 60.0))
        helpers = formal_helpers or ""
        if system == "coq":
            jobs.append(asyncio.to_thread(coq_check_claim, claim, formal_proof, helpers=helpers, timeout_s=timeout))
        else:
            project = _setting(settings, "lean_project_dir", None)
            project_dir = Path(project).expanduser() if project else None
            jobs.append(
                asyncio.to_thread(
                    lean_check_claim, claim, formal_proof, helpers=helpers, timeout_s=timeout, project_dir=project_dir
                )
            )
    started = time.monotonic()
    outcomes = await asyncio.gather(*jobs, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, list):
            results.extend(outcome)
        elif isinstance(outcome, CheckResult):
            results.append(outcome)
        elif isinstance(outcome, BaseException):
            # A checker bug must not pass a lemma or crash the loop: it is an "error" result.
            results.append(
                CheckResult(
                    checker="mechanical",
                    verdict="error",
                    detail=f"{type(outcome).__name__}: {outcome}",
                    seconds=round(time.monotonic() - started, 3),
                )
            )
    if not results:
        results.append(
            CheckResult(
                checker="mechanical",
                verdict="no_checker",
                detail="nothing to check: the lemma has neither a machine-checkable claim nor a formal proof",
            )
        )
    return results


def refuted(checks: list[CheckResult]) -> CheckResult | None:
    """The first check holding a confirmed counterexample (only the falsifier and SMT checkers
    put one there, after the exact re-check)."""
    for check in checks:
        if check.verdict == "failed" and check.counterexample is not None:
            return check
    return None


def mechanical_level(checks: list[CheckResult]) -> VerificationLevel | None:
    """ "formal" if a proof assistant passed, "smt" if an SMT solver proved the claim, else None.
    None as well whenever the claim was refuted, whatever else passed."""
    if refuted(checks) is not None:
        return None
    if any(c.checker in FORMAL_CHECKERS and c.verdict == "passed" for c in checks):
        return "formal"
    if any(c.checker in SMT_CHECKERS and c.verdict == "passed" for c in checks):
        return "smt"
    return None
