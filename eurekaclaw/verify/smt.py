"""smt_check: prove or refute a claim with Z3 (or cvc5) in a worker subprocess.

Workers (`python -m eurekaclaw.verify.smt_worker --serve`, run by line_worker.py) are kept in a
small pool because starting Python with sympy and z3 costs about a second. Every request has a hard deadline: a
worker that does not answer in time is killed (its whole process group) and the answer is
"unknown". A `Cancel` shared with other checks (mechanical.py's portfolio) kills the worker
as soon as another check has decided; the answer is then "skipped". A model returned by the solver counts as a counterexample only after exact.py
confirms it; "unsat" is reported as passed only when the translation's definedness needs follow
from the claim's own premises (smt_translate.py) and the premises are not contradictory.
"""

from __future__ import annotations

import atexit
import importlib.util
import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from eurekaclaw.line_worker import Cancel, WorkerPool
from eurekaclaw.types.artifacts import CheckResult, CheckVerdict, Claim
from eurekaclaw.verify.claims import ParsedClaim
from eurekaclaw.verify.exact import evaluate_parsed, parsed_for
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.smt_worker import READY

GRACE_S = 3.0


class SmtPool(WorkerPool):
    """Idle SMT workers, reused across requests; each request has one worker to itself. The
    worker enforces the solver's own timeout first: `grace_s` gives it time to say so."""

    def __init__(self, max_idle: int = 2, grace_s: float = GRACE_S) -> None:
        super().__init__("eurekaclaw.verify.smt_worker", READY, "the SMT worker", max_idle=max_idle, grace_s=grace_s)


_POOL = SmtPool()
atexit.register(_POOL.close)


def solver_version(solver: str) -> str | None:
    if solver == "z3" and importlib.util.find_spec("z3"):
        import z3

        return z3.get_version_string()
    if solver == "cvc5" and importlib.util.find_spec("cvc5"):
        import cvc5

        return str(getattr(cvc5, "__version__", "installed"))
    return None


def _to_float_point(model: dict[str, Any]) -> dict[str, Any] | None:
    """The model with rationals as floats (what a reader expects), or None when a value is
    beyond the float range (then only the exact model is re-checked)."""
    out: dict[str, Any] = {}
    try:
        for name, value in model.items():
            if isinstance(value, int):
                out[name] = value
            elif isinstance(value, str) and "/" in value:
                out[name] = float(Fraction(value))
            else:
                out[name] = float(value)
    except (OverflowError, ValueError):
        return None
    if any(isinstance(v, float) and not math.isfinite(v) for v in out.values()):
        return None
    return out


def smt_check(
    claim: Claim, *, timeout_s: float = 10.0, solver: str = "z3", cancel: Cancel | None = None
) -> CheckResult:
    """Prove (unsat of the negation → passed), refute (confirmed model → failed) or give up
    (unknown); "skipped" when `cancel` was set before the solver answered. Never raises for a
    bad claim: that is verdict "error"."""
    started = time.monotonic()
    if solver not in ("z3", "cvc5") or importlib.util.find_spec(solver) is None:
        return CheckResult(checker=solver, verdict="no_checker", detail=f"the {solver} Python module is not installed")
    try:
        parsed = parsed_for(claim)
    except ClaimError as exc:
        return CheckResult(checker=solver, verdict="error", detail=f"claim does not parse: {exc}")
    try:
        payload = {"claim": claim.model_dump(mode="json"), "timeout_s": timeout_s, "solver": solver}
        reply = _POOL.request(payload, timeout_s, cancel) if cancel is not None else _POOL.request(payload, timeout_s)
    except (RuntimeError, OSError) as exc:
        return CheckResult(
            checker=solver, verdict="error", detail=str(exc), seconds=round(time.monotonic() - started, 3)
        )
    if reply.get("status") == "cancelled":
        return CheckResult(
            checker=solver,
            verdict="skipped",
            detail="stopped: another checker decided the claim first",
            seconds=round(time.monotonic() - started, 3),
        )
    version = reply.get("version") or solver_version(solver)

    def result(verdict: CheckVerdict, detail: str, counterexample: dict[str, Any] | None = None) -> CheckResult:
        return CheckResult(
            checker=solver,
            verdict=verdict,
            detail=detail,
            version=version,
            counterexample=counterexample,
            seconds=round(time.monotonic() - started, 3),
        )

    return _verdict(reply, parsed, solver, result)


_Result = Callable[..., CheckResult]


def _verdict(reply: dict[str, Any], parsed: ParsedClaim, solver: str, result: _Result) -> CheckResult:
    """The check's result from the worker's reply (a model is only a candidate until the exact
    re-check confirms it)."""
    status = reply.get("status")
    reason = str(reply.get("reason") or "")
    if status == "unsat":
        return _proved(reply, parsed, solver, result)
    if status == "sat":
        return _refuted(reply, parsed, solver, result)
    unknown = {
        "vacuous": f"vacuous: {reason}; nothing was proved",
        "timeout": f"timeout: {reason}",
        "untranslatable": f"not expressible for {solver}: {reason}",
        "unknown": f"{solver} returned unknown ({reason})",
    }
    if isinstance(status, str) and status in unknown:
        return result("unknown", unknown[status])
    return result("error", reason or f"unexpected reply {reply!r}"[:300])


def _proved(reply: dict[str, Any], parsed: ParsedClaim, solver: str, result: _Result) -> CheckResult:
    form = f" (checked on {reply['form']})" if reply.get("form") else ""
    dropped = [str(d) for d in reply.get("dropped") or []]
    if dropped:
        # Proved without some premises; the witness must show the claim is not vacuous.
        witness = reply.get("witness") or {}
        ev = evaluate_parsed(parsed, witness)
        if ev.holds is False:
            return result("failed", f"counterexample {witness}: {ev.detail}", witness)
        if ev.status not in ("holds", "undecided"):
            return result(
                "unknown",
                f"{solver} proved the conclusion from the premises it can express, but could not "
                f"show that the others ({'; '.join(dropped)}) can hold: {ev.detail}",
            )
        form += f"; without the premises {solver} cannot express ({'; '.join(dropped)}), which hold at {witness}"
    return result(
        "passed",
        f"{solver} proved it: no point in the domain that satisfies the assumptions "
        f"(and where every expression is defined) violates the conclusion{form}",
    )


def _refuted(reply: dict[str, Any], parsed: ParsedClaim, solver: str, result: _Result) -> CheckResult:
    model = reply.get("model") or {}
    floats = _to_float_point(model)
    tries = [floats] if floats is not None else []
    if reply.get("exact") or floats is None:
        tries.append(model)
    last = ""
    for point in tries:
        ev = evaluate_parsed(parsed, point)
        if ev.holds is False:
            return result("failed", f"counterexample {point}: {ev.detail}", point)
        last = ev.detail
    return result("unknown", f"{solver} reported a model {model} that the exact re-check did not confirm ({last})")


def smt_analyse(claim: Claim, *, timeout_s: float = 5.0, solver: str = "z3") -> dict[str, Any]:
    """For trivial.py: {"vacuous", "pinned"} from the solver (values None when it
    could not tell), or {} when no solver is installed or the worker failed. Never raises."""
    if solver not in ("z3", "cvc5") or importlib.util.find_spec(solver) is None:
        return {}
    # several solver calls share the budget: the premises, one probe per variable, and the
    # bare conclusion (which may take two: as written and simplified, plus its implication check)
    per_query = max(0.05, timeout_s / (5 + len(claim.variables)))
    try:
        reply = _POOL.request(
            {"claim": claim.model_dump(mode="json"), "timeout_s": per_query, "solver": solver, "query": "analyse"},
            timeout_s,
        )
    except (RuntimeError, OSError):
        return {}
    if reply.get("status") != "ok":
        return {}
    return {k: reply.get(k) for k in ("vacuous", "pinned")}
