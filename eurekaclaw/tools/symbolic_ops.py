"""The computations behind the `symbolic` tool, on sympy: simplify, expand, factor, series,
limit, sum, integrate, solve, diff, sign analysis and a symbolic identity/inequality check.

Every expression goes through the claim language's own parser (verify/grammar.py and
verify/claims.py): a character whitelist, a fixed tokenizer, a small AST and a fixed vocabulary.
Nothing from a request reaches eval, sympify or parse_expr, so there is no attribute access and
no Python to run. These functions may still take unbounded time (sympy can hang on an innocent
integral): they run in the worker process of symbolic_worker.py, which the parent kills at its
deadline.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from pydantic import ValidationError

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify.claims import RESERVED, parse_claim, parse_expression
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.grammar import ClaimError, Node, parse_relation_text

OPERATIONS = ("simplify", "expand", "factor", "series", "limit", "sum", "integrate", "solve", "diff", "sign", "check")
# Operations that act on one variable; the others work on the whole expression.
NEEDS_VARIABLE = ("series", "limit", "sum", "integrate", "solve", "diff")
MAX_INPUT_CHARS = 2_000
MAX_RESULT_CHARS = 4_000
MAX_SERIES_ORDER = 20
MAX_DIFF_ORDER = 10
MAX_ASSUMPTIONS = 20
_INFINITY = {
    "oo": sp.oo,
    "+oo": sp.oo,
    "inf": sp.oo,
    "infinity": sp.oo,
    "-oo": -sp.oo,
    "-inf": -sp.oo,
    "-infinity": -sp.oo,
}


class SymbolicError(ClaimError):
    """A request the tool cannot serve; its message goes back to the model."""


def _text(request: dict[str, Any], key: str, required: bool = True) -> str | None:
    value = request.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise SymbolicError(f"'{key}' is required for this operation")
        return None
    if not isinstance(value, str):
        raise SymbolicError(f"'{key}' must be a string in the claim language")
    if len(value) > MAX_INPUT_CHARS:
        raise SymbolicError(f"'{key}' is {len(value):,} characters long; the limit is {MAX_INPUT_CHARS:,}")
    return value


def _used_names(tree: Node, out: set[str], bound: frozenset[str] = frozenset()) -> None:
    """Names used as variables (not functions, constants or sum indices)."""
    if tree.kind == "name":
        if tree.value not in RESERVED and tree.value not in bound:
            out.add(tree.value)
        return
    if tree.kind == "call" and tree.value in ("Sum", "sum") and len(tree.args) == 2:
        body, limits = tree.args
        if limits.kind == "tuple" and limits.args and limits.args[0].kind == "name":
            for arg in limits.args[1:]:
                _used_names(arg, out, bound)
            _used_names(body, out, bound | {limits.args[0].value})
            return
    for arg in tree.args:
        _used_names(arg, out, bound)


def declare(request: dict[str, Any], texts: list[str], integer: str | None = None) -> list[ClaimVariable]:
    """The request's declared variables, plus every other name in `texts` as a real variable
    (`integer`: a name declared as an integer when it is not declared, e.g. a summation index)."""
    raw = request.get("variables") or []
    if not isinstance(raw, list) or len(raw) > 30:
        raise SymbolicError("'variables' must be a list of at most 30 {name, domain, low, high} objects")
    try:
        declared = [ClaimVariable.model_validate(v) for v in raw]
    except ValidationError as exc:
        raise SymbolicError(f"bad 'variables': {exc.errors()[0].get('msg', exc)}") from None
    known = {v.name for v in declared}
    names: set[str] = set()
    for text in texts:
        _used_names(parse_relation_text(text, "expression"), names)
    for name in sorted(names - known):
        declared.append(ClaimVariable(name=name, domain="integer" if name == integer else "real"))
    return declared


def _expr(text: str, variables: list[ClaimVariable], what: str) -> sp.Expr:
    return evaluated(parse_expression(text, variables, what))


def _point(text: str | None, variables: list[ClaimVariable], what: str) -> sp.Expr:
    if text is None:
        raise SymbolicError(f"'{what}' is required for this operation")
    key = text.strip().lower().replace(" ", "")
    if key in _INFINITY:
        return _INFINITY[key]
    return _expr(text, variables, what)


def _symbol(variables: list[ClaimVariable], expr_text: str, request: dict[str, Any]) -> tuple[sp.Symbol, str]:
    name = _text(request, "variable")
    assert name is not None
    if name not in {v.name for v in variables}:
        raise SymbolicError(f"'variable' {name!r} does not occur in the expression and is not declared")
    symbol = parse_expression(name, variables, "variable")
    if not isinstance(symbol, sp.Symbol):
        raise SymbolicError(f"'variable' must be a single name, got {name!r}")
    return symbol, name


def _order(request: dict[str, Any], default: int, limit: int) -> int:
    value = request.get("order", default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
        raise SymbolicError(f"'order' must be an integer from 1 to {limit}")
    return value


def _show(value: Any) -> str:
    text = str(value)
    if len(text) > MAX_RESULT_CHARS:
        return text[: MAX_RESULT_CHARS - 40] + f" … ({len(text):,} characters, cut)"
    return text


def _interval(var: ClaimVariable) -> sp.Set:
    """The real interval a variable ranges over (integers: the real hull, said so in the reply)."""
    lo = -sp.oo if var.low is None else sp.Rational(repr(var.low))
    hi = sp.oo if var.high is None else sp.Rational(repr(var.high))
    lo_open = var.open_low or var.low is None
    if var.domain == "positive" and (var.low is None or var.low <= 0):
        lo, lo_open = sp.Integer(0), True
    elif var.domain in ("nonnegative", "natural") and (var.low is None or var.low < 0):
        lo, lo_open = sp.Integer(0), False
    return sp.Interval(lo, hi, lo_open, var.open_high or var.high is None)


def _sign(expr: sp.Expr, variables: list[ClaimVariable]) -> dict[str, Any]:
    facts = {
        "positive": expr.is_positive,
        "nonnegative": expr.is_nonnegative,
        "zero": expr.is_zero,
        "nonpositive": expr.is_nonpositive,
        "negative": expr.is_negative,
    }
    known = [k for k, v in facts.items() if v is True]
    out: dict[str, Any] = {
        "sign_everywhere": known[0] if known else "unknown",
        "detail": "from the variables' declared signs alone"
        if known
        else "not decided from the variables' declared signs",
    }
    free = sorted(expr.free_symbols, key=str)
    if len(free) == 1:
        var = next(v for v in variables if v.name == str(free[0]))
        domain = _interval(var)
        x = free[0]
        out["over"] = _show(domain) + (
            " (real hull of the integer variable)" if var.domain in ("integer", "natural") else ""
        )
        out["zeros"] = _show(sp.solveset(sp.Eq(expr, 0), x, domain))
        out["positive_on"] = _show(sp.solveset(expr > 0, x, domain))
        out["negative_on"] = _show(sp.solveset(expr < 0, x, domain))
    return out


def _solve(expr_text: str, variables: list[ClaimVariable], x: sp.Symbol) -> sp.Set:
    tree = parse_relation_text(expr_text, "expression")
    var = next(v for v in variables if v.name == str(x))
    domain = _interval(var)
    if tree.kind != "chain":
        return sp.solveset(sp.Eq(_expr(expr_text, variables, "expression"), 0), x, domain)
    claim = Claim(variables=variables, conclusion=expr_text)
    rels = parse_claim(claim).conclusion
    result: sp.Set = domain
    for rel in rels:
        lhs, rhs = evaluated(rel.lhs), evaluated(rel.rhs)
        relation = {"<=": sp.Le, "<": sp.Lt, ">=": sp.Ge, ">": sp.Gt, "==": sp.Eq, "!=": sp.Ne}[rel.op](lhs, rhs)
        result = sp.Intersection(result, sp.solveset(relation, x, domain))
    return sp.simplify(result)


def _check(request: dict[str, Any]) -> dict[str, Any]:
    """sympy's opinion on a relation: the difference simplified, and its sign from the
    variables' declared signs. Evidence for the model, never a proof level."""
    text = _text(request, "expression")
    assert text is not None
    assumptions = request.get("assumptions") or []
    if (
        not isinstance(assumptions, list)
        or len(assumptions) > MAX_ASSUMPTIONS
        or not all(isinstance(a, str) for a in assumptions)
    ):
        raise SymbolicError(f"'assumptions' must be a list of at most {MAX_ASSUMPTIONS} relations")
    claim = Claim(variables=declare(request, [text, *assumptions]), assumptions=assumptions, conclusion=text)
    parsed = parse_claim(claim)
    verdicts = []
    for rel in parsed.conclusion:
        diff = sp.simplify(evaluated(rel.difference()))
        if rel.op == "==":
            verdict = "holds" if diff == 0 else ("fails" if diff.is_number or diff.is_zero is False else "unknown")
        elif rel.op == "!=":
            verdict = "holds" if diff.is_zero is False else ("fails" if diff == 0 else "unknown")
        else:
            strict = rel.strict
            ok = diff.is_positive if strict else diff.is_nonnegative
            bad = diff.is_nonpositive if strict else diff.is_negative
            verdict = "holds" if ok else ("fails" if bad else "unknown")
        side = "lhs - rhs" if rel.op in ("==", "!=", ">=", ">") else "rhs - lhs"
        verdicts.append(
            {
                "relation": rel.text if len(parsed.conclusion) == 1 else f"{_show(rel.lhs)} {rel.op} {_show(rel.rhs)}",
                "verdict": verdict,
                "difference": f"{side} simplifies to {_show(diff)}",
            }
        )
    overall = (
        "fails"
        if any(v["verdict"] == "fails" for v in verdicts)
        else "holds"
        if all(v["verdict"] == "holds" for v in verdicts)
        else "unknown"
    )
    detail = "; ".join(f"{v['relation']}: {v['verdict']} ({v['difference']})" for v in verdicts)
    if overall == "holds" and parsed.assumptions:
        detail += " — without using the assumptions"
    if overall == "holds" and parsed.conditions:
        detail += f" — where every expression is defined ({'; '.join(c.text for c in parsed.conditions[:5])})"
    return {"verdict": overall, "detail": detail, "claim": claim.model_dump(mode="json")}


def compute(request: dict[str, Any]) -> dict[str, Any]:
    """One operation. Returns {"result": ...} (plus details) or raises ClaimError/SymbolicError
    with a one-line reason."""
    op = request.get("operation")
    if op not in OPERATIONS:
        raise SymbolicError(f"unknown operation {op!r}; one of {', '.join(OPERATIONS)}")
    if op == "check":
        return _check(request)
    text = _text(request, "expression")
    assert text is not None
    integer = request.get("variable") if op == "sum" else None
    extra = [t for t in (_text(request, k, False) for k in ("point", "lower", "upper")) if t is not None]
    extra = [t for t in extra if t.strip().lower().replace(" ", "") not in _INFINITY]
    variables = declare(request, [text, *extra], integer=integer if isinstance(integer, str) else None)
    if op == "solve":
        x, _ = _symbol(variables, text, request)
        return {
            "result": _show(_solve(text, variables, x)),
            "over": _show(_interval(next(v for v in variables if v.name == str(x)))),
        }
    expr = _expr(text, variables, "expression")
    if op in _REWRITES:
        return {"result": _show(_REWRITES[op](expr))}
    if op == "sign":
        return _sign(sp.simplify(expr), variables)
    x, _ = _symbol(variables, text, request)
    return _CALCULUS.get(op, _integrate)(request, expr, x, variables)


_REWRITES = {"simplify": sp.simplify, "expand": sp.expand, "factor": sp.factor}


def _diff(request: dict[str, Any], expr: sp.Expr, x: sp.Symbol, variables: list[ClaimVariable]) -> dict[str, Any]:
    return {"result": _show(sp.simplify(sp.diff(expr, x, _order(request, 1, MAX_DIFF_ORDER))))}


def _series(request: dict[str, Any], expr: sp.Expr, x: sp.Symbol, variables: list[ClaimVariable]) -> dict[str, Any]:
    point = _point(_text(request, "point", False) or "0", variables, "point")
    return {"result": _show(sp.series(expr, x, point, _order(request, 6, MAX_SERIES_ORDER)))}


def _limit(request: dict[str, Any], expr: sp.Expr, x: sp.Symbol, variables: list[ClaimVariable]) -> dict[str, Any]:
    point = _point(_text(request, "point"), variables, "point")
    direction = request.get("direction") or "+-"
    if direction not in ("+", "-", "+-"):
        raise SymbolicError("'direction' must be '+', '-' or '+-'")
    if point in (sp.oo, -sp.oo):
        direction = "-" if point == sp.oo else "+"
    return {"result": _show(sp.limit(expr, x, point, direction))}


def _sum(request: dict[str, Any], expr: sp.Expr, x: sp.Symbol, variables: list[ClaimVariable]) -> dict[str, Any]:
    lower = _point(_text(request, "lower"), variables, "lower")
    upper = _point(_text(request, "upper"), variables, "upper")
    return {"result": _show(sp.simplify(sp.Sum(expr, (x, lower, upper)).doit()))}


def _integrate(request: dict[str, Any], expr: sp.Expr, x: sp.Symbol, variables: list[ClaimVariable]) -> dict[str, Any]:
    """Indefinite without bounds, definite with both."""
    lo_text, hi_text = _text(request, "lower", False), _text(request, "upper", False)
    if (lo_text is None) != (hi_text is None):
        raise SymbolicError("give both 'lower' and 'upper' for a definite integral, or neither")
    if lo_text is None:
        value = sp.integrate(expr, x)
        return {"result": _show(value), "complete": not value.has(sp.Integral)}
    value = sp.integrate(expr, (x, _point(lo_text, variables, "lower"), _point(hi_text, variables, "upper")))
    return {"result": _show(sp.simplify(value)), "complete": not value.has(sp.Integral)}


# one-variable operations: (request, expression, variable, declared variables) -> reply
_CALCULUS = {"diff": _diff, "series": _series, "limit": _limit, "sum": _sum, "integrate": _integrate}
