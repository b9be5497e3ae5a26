"""SMT worker process: `python -m eurekaclaw.verify.smt_worker [--serve]`.

Reads JSON requests {"claim": {...}, "timeout_s": 10, "solver": "z3"|"cvc5"} — one on stdin,
or one per line with --serve — and answers {"status": unsat|sat|unknown|vacuous|untranslatable|
error, "model": {...}, "reason": str, "version": str}. With "query": "analyse" it answers
{"status": "ok", "vacuous", "pinned"} for trivial.py instead. The claim is re-parsed here with the same safe
parser; nothing from the request is evaluated. The line protocol is line_worker.py's. The parent enforces a hard timeout by killing
this process; the solver's own timeout is only the polite first line.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from eurekaclaw.line_worker import private_stdout, serve

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


def _structurally_in(fact: Any, facts: list[Any]) -> bool:
    for other in facts:
        try:
            if fact.eq(other):
                return True
        except Exception:  # a solver API without eq(): fall back to asking the solver
            return False
    return False


def _open_needs(tr: Any, premises: list[Any]) -> list[Any]:
    """The translation's definedness needs that are not literally premises of the claim."""
    return [n for n in tr.needs if not _structurally_in(n, premises)]


def _implied(zz: Any, solver_name: str, timeout_ms: int, premises: list[Any], tr: Any, needs: list[Any]) -> bool:
    """Whether the claim's premises imply every need (premises ∧ defs ∧ ¬needs is unsat)."""
    if not needs:
        return True
    s = _solver(zz, solver_name, timeout_ms)
    s.add(*premises, *tr.defs, zz.Not(zz.And(*needs)))
    return bool(s.check() == zz.unsat)


def _translate(zz: Any, parsed: Any, *, relax_ints: bool = False) -> tuple[Any, list[Any], Any]:
    """Translate the conclusion as written, else sympy's simplified form; premises that do not
    translate are left out (listed in `tr.dropped`). The axioms of the transcendental terms
    (smt_axioms.py) are added to `tr.defs`."""
    from eurekaclaw.verify.smt_translate import Translator, Untranslatable

    try:
        tr = Translator(zz, parsed, relax_ints=relax_ints)
        premises, goal = tr.premises(partial=True), tr.negated_conclusion()
    except Untranslatable as first:
        try:
            tr = Translator(zz, parsed, simplified=True, relax_ints=relax_ints)
            premises, goal = tr.premises(partial=True), tr.negated_conclusion()
        except Untranslatable:
            raise first from None
    tr.finish()
    return tr, premises, goal


def _model(zz: Any, tr: Any, model: Any) -> tuple[dict[str, Any], bool]:
    from eurekaclaw.verify.smt_translate import model_value

    values: dict[str, Any] = {}
    exact = True
    for name, var in tr.vars.items():
        value, is_exact = model_value(zz, model.eval(var, model_completion=True))
        values[name] = value
        exact &= is_exact
    return values, exact


def handle(request: dict[str, Any]) -> dict[str, Any]:
    from eurekaclaw.types.artifacts import Claim
    from eurekaclaw.verify.claims import parse_claim
    from eurekaclaw.verify.grammar import ClaimError

    solver_name = str(request.get("solver", "z3"))
    try:
        zz, version = _solver_module(solver_name)
    except ImportError as exc:
        return {"status": "error", "reason": f"{solver_name} is not installed ({exc})", "version": None}
    timeout_ms = max(1, int(float(request.get("timeout_s", 10.0)) * 1000))
    try:
        claim = Claim.model_validate(request["claim"])
        parsed = parse_claim(claim)
        if request.get("query") == "analyse":
            return {"status": "ok", "version": version, **analyse(zz, solver_name, parsed, timeout_ms)}
    except ClaimError as exc:
        return {"status": "error", "reason": str(exc), "version": version}
    return {**prove(zz, solver_name, parsed, timeout_ms), "version": version}


class _Budget:
    """The request's time budget, shared by every solver call of one request (the parent kills
    the worker a few seconds after it runs out)."""

    def __init__(self, timeout_ms: int) -> None:
        self.deadline = time.monotonic() + timeout_ms / 1000

    def left_ms(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


def prove(zz: Any, solver_name: str, parsed: Any, timeout_ms: int) -> dict[str, Any]:
    """Integer variables as integers first; if the solver gives up and the claim has integer
    variables, once more with them relaxed to reals (unsat there proves the claim too)."""
    budget = _Budget(timeout_ms)
    has_ints = any(d.kind == "int" for d in parsed.domains.values())
    first_ms = timeout_ms // 2 if has_ints else timeout_ms
    answer = _prove(zz, solver_name, parsed, min(first_ms, budget.left_ms()), budget, relax_ints=False)
    if answer.get("status") == "unknown" and has_ints and budget.left_ms() > 50 and answer.get("retry", True):
        relaxed = _prove(zz, solver_name, parsed, budget.left_ms(), budget, relax_ints=True)
        if relaxed.get("status") in ("unsat", "vacuous"):
            relaxed["form"] = (relaxed.get("form") or "the claim as written") + ", integer variables relaxed to reals"
            answer = relaxed
    answer.pop("retry", None)
    return answer


def _prove(
    zz: Any, solver_name: str, parsed: Any, first_ms: int, budget: _Budget, *, relax_ints: bool
) -> dict[str, Any]:
    from eurekaclaw.verify.smt_translate import Untranslatable

    try:
        tr, premises, goal = _translate(zz, parsed, relax_ints=relax_ints)
    except Untranslatable as exc:
        return {"status": "untranslatable", "reason": str(exc)}
    needs = _open_needs(tr, premises)
    form = "sympy's simplified form" if tr.simplified else "the claim as written"
    solver = _solver(zz, solver_name, max(1, first_ms))
    solver.add(*premises, *tr.defs, *needs, goal)
    result = solver.check()
    timeout_ms = max(1, budget.left_ms())
    if result == zz.unsat:
        if not _implied(zz, solver_name, timeout_ms, premises, tr, needs):
            # The translation is only defined on part of the claim's domain (sympy rewrote
            # sqrt(x*y) as sqrt(x)*sqrt(y), say): unsat there proves nothing about the rest.
            return {
                "status": "unknown",
                "reason": f"the translation of {form} is defined on less than the claim's domain, so unsat proves nothing",
            }
        # A claim whose premises are contradictory is vacuously true; say so instead of "proved".
        vacuity = _solver(zz, solver_name, timeout_ms)
        vacuity.add(*premises, *tr.defs, *needs)
        verdict = vacuity.check()
        if verdict == zz.unsat:
            return {
                "status": "vacuous",
                "reason": "the domains, assumptions and definedness conditions are contradictory",
            }
        if tr.dropped:
            # Proved from the premises z3 can express; a point where the others hold too must
            # show the claim is not vacuous. The parent re-checks this witness exactly.
            if verdict != zz.sat:
                return {"status": "unknown", "reason": "could not find a point satisfying the premises"}
            witness, _ = _model(zz, tr, vacuity.model())
            return {"status": "unsat", "form": form, "dropped": tr.dropped, "witness": witness}
        return {"status": "unsat", "form": form}
    if result == zz.sat:
        values, exact = _model(zz, tr, solver.model())
        if relax_ints:  # a model of the relaxation may be fractional: not worth passing on
            return {"status": "unknown", "reason": "the relaxation to reals has a model"}
        return {"status": "sat", "model": values, "exact": exact}
    return {"status": "unknown", "reason": str(solver.reason_unknown())}


def analyse(zz: Any, solver_name: str, parsed: Any, timeout_ms: int) -> dict[str, Any]:
    """For trivial.py: are the premises contradictory (`vacuous`), is every variable forced to
    one value (`pinned`: ["x = 3", ...])? None = could not tell. The translation's definedness
    needs are added as premises in the first two: an error there can only make a claim look
    trivial (it then earns nothing), never earn it a level."""
    from eurekaclaw.verify.smt_translate import Translator

    out: dict[str, Any] = {"vacuous": None, "pinned": None}
    tr = Translator(zz, parsed)
    # Premises that do not translate are left out: "unsat" of the rest still means the full
    # set is unsat (pinning likewise); "sat" of the rest proves nothing about the full set.
    facts = tr.premises(partial=True)
    tr.finish()
    s = _solver(zz, solver_name, timeout_ms)
    s.add(*facts, *tr.side)
    verdict = s.check()
    if verdict == zz.unsat:
        out["vacuous"] = True
    elif verdict == zz.sat and tr.vars:
        out["vacuous"] = False if not tr.dropped else None
        model = s.model()
        values, _ = _model(zz, tr, model)
        pinned: list[str] = []
        for name, var in tr.vars.items():
            probe = _solver(zz, solver_name, timeout_ms)
            probe.add(*facts, *tr.side, var != model.eval(var, model_completion=True))
            if probe.check() != zz.unsat:
                break
            pinned.append(f"{name} = {values[name]}")
        else:
            out["pinned"] = pinned
    elif verdict == zz.sat:
        out["vacuous"] = False if not tr.dropped else None
    return out


def _safe_handle(request: Any) -> dict[str, Any]:
    try:
        if not isinstance(request, dict) or "claim" not in request:
            return {"status": "error", "reason": "malformed request"}
        return handle(request)
    except Exception as exc:  # the parent needs an answer, not a dead pipe
        return {"status": "error", "reason": f"{type(exc).__name__}: {exc}"}


def main(argv: list[str]) -> int:
    out = private_stdout()
    import sympy  # noqa: F401  (warm the imports before announcing readiness)

    try:
        import z3  # noqa: F401
    except ImportError:
        pass
    if "--serve" not in argv:
        out.write(_reply(_safe_handle(json.loads(sys.stdin.read() or "null"))) + "\n")
        return 0
    serve(out, READY, lambda request: _reply(_safe_handle(request)))
    return 0


def _reply(answer: dict[str, Any]) -> str:
    try:
        return json.dumps(answer)
    except ValueError:  # a model integer beyond Python's 4,300-digit printing limit
        return json.dumps(
            {
                "status": "unknown",
                "reason": "the solver's model is too large to pass on",
                "version": answer.get("version"),
            }
        )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
