"""SMT worker process: `python -m eurekaclaw.verify.smt_worker [--serve]`.

Reads JSON requests {"claim": {...}, "timeout_s": 10, "solver": "z3"|"cvc5"} — one on stdin,
or one per line with --serve — and answers {"status": unsat|sat|unknown|untranslatable|error,
"model": {...}, "reason": str, "version": str}. The claim is re-parsed here with the same safe
parser; nothing from the request is evaluated. The parent enforces a hard timeout by killing
this process; the solver's own timeout is only the polite first line.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

READY = "eurekaclaw-smt-worker-ready"


def _solver_module(name: str) -> tuple[Any, str]:
    if name == "cvc5":
        import cvc5
        import cvc5.pythonic as zz

        return zz, f"cvc5 {getattr(cvc5, '__version__', '')}".strip()
    import z3 as zz

    return zz, f"z3 {zz.get_version_string()}"


def _solver(zz: Any, name: str, timeout_ms: int) -> Any:
    solver = zz.Solver()
    try:
        # per-check time limits; the parent's hard deadline backs them up either way
        solver.set("timeout" if name == "z3" else "tlimit-per", timeout_ms)
    except Exception:  # an option a solver version does not know must not stop the check
        pass
    return solver


def handle(request: dict[str, Any]) -> dict[str, Any]:
    from eurekaclaw.types.artifacts import Claim
    from eurekaclaw.verify.claims import parse_claim
    from eurekaclaw.verify.grammar import ClaimError
    from eurekaclaw.verify.smt_translate import Translator, Untranslatable, model_value

    solver_name = str(request.get("solver", "z3"))
    try:
        zz, version = _solver_module(solver_name)
    except ImportError as exc:
        return {"status": "error", "reason": f"{solver_name} is not installed ({exc})", "version": None}
    try:
        parsed = parse_claim(Claim.model_validate(request["claim"]))
        tr = Translator(zz, parsed)
        premises = tr.premises()
        goal = tr.negated_conclusion()
    except ClaimError as exc:
        return {"status": "error", "reason": str(exc), "version": version}
    except Untranslatable as exc:
        return {"status": "untranslatable", "reason": str(exc), "version": version}
    timeout_ms = max(1, int(float(request.get("timeout_s", 10.0)) * 1000))
    solver = _solver(zz, solver_name, timeout_ms)
    solver.add(*premises, *tr.side, goal)
    result = solver.check()
    if result == zz.unsat:
        # A claim whose premises are contradictory is vacuously true; say so instead of "proved".
        vacuity = _solver(zz, solver_name, timeout_ms)
        vacuity.add(*premises, *tr.side)
        if vacuity.check() == zz.unsat:
            return {"status": "vacuous", "reason": "the domains, assumptions and definedness conditions are contradictory", "version": version}
        return {"status": "unsat", "version": version}
    if result == zz.sat:
        model = solver.model()
        values: dict[str, Any] = {}
        exact = True
        for name, var in tr.vars.items():
            value, is_exact = model_value(zz, model.eval(var, model_completion=True))
            values[name] = value
            exact &= is_exact
        return {"status": "sat", "model": values, "exact": exact, "version": version}
    return {"status": "unknown", "reason": str(solver.reason_unknown()), "version": version}


def _safe_handle(request: Any) -> dict[str, Any]:
    try:
        if not isinstance(request, dict) or "claim" not in request:
            return {"status": "error", "reason": "malformed request"}
        return handle(request)
    except Exception as exc:  # the parent needs an answer, not a dead pipe
        return {"status": "error", "reason": f"{type(exc).__name__}: {exc}"}


def main(argv: list[str]) -> int:
    # Replies go to a private copy of stdout; anything a library prints goes to stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr
    import sympy  # noqa: F401  (warm the imports before announcing readiness)

    try:
        import z3  # noqa: F401
    except ImportError:
        pass
    if "--serve" not in argv:
        out.write(json.dumps(_safe_handle(json.loads(sys.stdin.read() or "null"))) + "\n")
        return 0
    out.write(READY + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except json.JSONDecodeError as exc:
            out.write(json.dumps({"status": "error", "reason": f"bad JSON: {exc}"}) + "\n")
            continue
        out.write(json.dumps(_safe_handle(request)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
