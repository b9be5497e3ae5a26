"""run_mechanical_checks: every machine check that applies to one lemma, concurrently, without
blocking the event loop; and the two questions the theory loop asks of the results —
how strong is the evidence (mechanical_level) and was the claim refuted (refuted). Which
checkers exist, and what kind each is, comes from the registry (registry.py). The claim's own
checks are a portfolio (portfolio.py): the first decisive answer stops the other solver, and
inside a `claim_check_session()` an identical claim is checked once.

Status invariant (DESIGN §3): a refuted claim is never recorded as proven, so
mechanical_level returns None whenever any check holds a confirmed counterexample.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from eurekaclaw.types.artifacts import CheckResult, Claim, VerificationLevel
from eurekaclaw.verify import registry
from eurekaclaw.verify.checker import FormalProof
from eurekaclaw.verify.exact import parsed_for
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.limits import CheckLimits
from eurekaclaw.verify.portfolio import ClaimCheckCache, check_claim, session_cache

if TYPE_CHECKING:
    from eurekaclaw.config import Settings

DEFAULT_FORMAL = "coq"  # the proof assistant a formal proof is for when the caller does not say


async def run_mechanical_checks(
    claim: Claim | None,
    *,
    settings: Settings | None = None,
    limits: CheckLimits | None = None,
    formal_proof: str | None = None,
    formal_helpers: str | None = None,
    formal_system: str | None = None,
    seed: int = 0,
    portfolio: bool = True,
    cache: ClaimCheckCache | None = None,
) -> list[CheckResult]:
    """The numeric and SMT checkers on the claim and, when a formal proof is given, the formal
    checker `formal_system` ("coq" by default) checking that proof against the statement
    generated from THE CLAIM, all concurrently. `formal_proof` is the tactic script,
    `formal_helpers` optional lemmas placed before the theorem. `limits` (else read once from
    `settings`, else Settings' defaults) bounds every checker. Checkers that cannot run here
    appear with verdict "no_checker"; an unparseable claim gives one "error" result from checker
    "claim"; a formal proof without a (parseable) claim checks nothing and is "skipped"; with
    nothing to check, one "no_checker". `portfolio=False` waits for every checker (the previous
    behaviour, kept for the benchmark); `cache` defaults to the session's
    (`claim_check_session()`), if any."""
    limits = limits if limits is not None else CheckLimits.from_settings(settings)
    results: list[CheckResult] = []
    jobs: list[Awaitable[Any]] = []
    claim_ok = claim is not None and _parses(claim, results)
    if claim is not None and claim_ok:
        jobs.append(_claim_checks(claim, limits, seed, portfolio, cache, results))
    if formal_proof is not None and formal_proof.strip():
        proof = FormalProof(formal_proof, formal_helpers or "")
        job = _formal_job(claim, claim_ok, proof, formal_system or DEFAULT_FORMAL, limits, results)
        if job is not None:
            jobs.append(job)
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


def _parses(claim: Claim, results: list[CheckResult]) -> bool:
    try:
        parsed_for(claim)
    except ClaimError as exc:
        results.append(CheckResult(checker="claim", verdict="error", detail=f"claim does not parse: {exc}"))
        return False
    return True


def _claim_checks(
    claim: Claim,
    limits: CheckLimits,
    seed: int,
    portfolio: bool,
    cache: ClaimCheckCache | None,
    results: list[CheckResult],
) -> Awaitable[list[CheckResult]]:
    """The portfolio of every available numeric and SMT checker; the unavailable ones are
    reported at once as "no_checker" (with their install hint)."""
    broken = registry.setup_problem()
    if broken is not None:  # said on every check: no checker at all is no evidence, not a pass
        results.append(CheckResult(checker="mechanical", verdict="error", detail=broken.detail))
    claim_checkers = [c for c in registry.all_checkers() if c.kind in ("numeric", "smt")]
    results.extend(registry.unavailable([c for c in claim_checkers if not c.available()]))
    return check_claim(
        claim,
        seed=seed,
        limits=limits,
        solvers=tuple(c.name for c in claim_checkers if c.kind == "smt" and c.available()),
        portfolio=portfolio,
        cache=cache if cache is not None else session_cache(),
    )


def _formal_job(
    claim: Claim | None,
    claim_ok: bool,
    proof: FormalProof,
    system: str,
    limits: CheckLimits,
    results: list[CheckResult],
) -> Awaitable[CheckResult] | None:
    """The formal checker `system` on the proof, or the reason it is not run (in `results`)."""
    formal = registry.checker(system)
    if formal is None or formal.kind != "formal":
        known = " or ".join(registry.names_of_kind("formal"))
        results.append(
            CheckResult(checker="formal", verdict="error", detail=f"unknown formal_system {system!r} ({known})")
        )
        return None
    if claim is None:
        # The statement a proof is checked against comes from the claim; without one, a proof
        # could prove anything (`1 + 1 = 2`), so it is not evidence of anything.
        results.append(
            CheckResult(
                checker=system, verdict="skipped", detail="a formal proof without a claim checks nothing; ignored"
            )
        )
        return None
    if not claim_ok:
        results.append(
            CheckResult(
                checker=system,
                verdict="skipped",
                detail="the claim does not parse, so there is no statement to check the formal proof against",
            )
        )
        return None
    return asyncio.to_thread(registry.run_check, formal, claim, limits, proof=proof)


def refuted(checks: list[CheckResult]) -> CheckResult | None:
    """The first check holding a confirmed counterexample (the falsifier and SMT checkers put
    one there after the exact re-check; a third-party checker's is re-checked by the registry)."""
    for check in checks:
        if check.verdict == "failed" and check.counterexample is not None:
            return check
    return None


def mechanical_level(checks: list[CheckResult]) -> VerificationLevel | None:
    """ "formal" if a registered formal checker passed, "smt" if a registered SMT checker proved
    the claim, else None (a numeric checker, or a name nothing registered, never gives a level).
    None as well whenever the claim was refuted, whatever else passed."""
    if refuted(checks) is not None:
        return None
    passed = {c.checker for c in checks if c.verdict == "passed"}
    if passed & set(registry.names_of_kind("formal")):
        return "formal"
    if passed & set(registry.names_of_kind("smt")):
        return "smt"
    return None
