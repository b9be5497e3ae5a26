"""Claim → ParsedClaim: sympy expressions, variable domains and relations.

The AST from grammar.py is turned into sympy objects (claim_builder.py) under a fixed
vocabulary: declared variables, sum indices in their own scope, the constants pi/e and a
whitelist of functions; the result types live in claim_model.py. Constant sub-expressions that
sympy would evaluate eagerly (2^(10^9), factorial(10^7)) are size-checked first, so a claim
cannot make the parser hang or exhaust memory.

Every node that involves a variable is built *unevaluated* (as written). sympy's automatic
rewriting is value-preserving over the complex numbers but not over the reals a claim speaks
about: with x >= 0 it turns sqrt(x*y) into sqrt(x)*sqrt(y), which is undefined at (0, -1) where
the original is 0. The checkers therefore work on the expression as written; `evaluated()` /
`Relation.simplified` give sympy's normal form where only the value matters. Purely numeric
sub-expressions are folded to their value (they have no domain to lose).
"""

from __future__ import annotations

import math
from typing import Literal

import sympy as sp

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify.claim_builder import FUNCTION_ARITY, NAME, RESERVED, ExpressionBuilder
from eurekaclaw.verify.claim_model import ParsedClaim, Relation, RelOp, VarDomain
from eurekaclaw.verify.forms import evaluated
from eurekaclaw.verify.grammar import ClaimError, parse_relation_text
from eurekaclaw.verify.signs import Interval, SignFacts, premise_of

# The claim language's public face: the parser and the types it returns.
__all__ = ["RESERVED", "ParsedClaim", "RelOp", "Relation", "VarDomain", "parse_claim", "parse_expression"]

MAX_VARIABLES = 30
MAX_ASSUMPTIONS = 40


# --------------------------------------------------------------------------------------------
# Domains
# --------------------------------------------------------------------------------------------


def _rational(value: float, what: str) -> sp.Rational:
    if not math.isfinite(value):
        raise ClaimError(f"{what}: bound must be finite, got {value}")
    return sp.Rational(repr(float(value)))


def _domain(var: ClaimVariable) -> VarDomain:
    what = f"variable {var.name}"
    lo = None if var.low is None else _rational(var.low, what)
    hi = None if var.high is None else _rational(var.high, what)
    lo_open, hi_open = var.open_low, var.open_high
    kind: Literal["real", "int"] = "int" if var.domain in ("integer", "natural") else "real"
    if var.domain == "interval" and lo is None and hi is None:
        raise ClaimError(f"{what}: an interval needs low and/or high")
    base = {"positive": (sp.Integer(0), True), "nonnegative": (sp.Integer(0), False)}.get(var.domain)
    if var.domain == "natural":
        base = (sp.Integer(0), False) if lo is None else None
    if base is not None and (lo is None or lo < base[0] or (lo == base[0] and base[1])):
        lo, lo_open = base
    if kind == "int":
        if lo is not None:
            lo, lo_open = (sp.floor(lo) + 1 if lo_open and lo.is_integer else sp.ceiling(lo)), False
        if hi is not None:
            hi, hi_open = (sp.ceiling(hi) - 1 if hi_open and hi.is_integer else sp.floor(hi)), False
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_open or hi_open))):
        raise ClaimError(f"{what}: the domain is empty (low={var.low}, high={var.high})")
    return VarDomain(kind, lo, hi, lo_open, hi_open)


def _symbol(name: str, dom: VarDomain) -> sp.Symbol:
    flags: dict[str, bool] = {"integer": True} if dom.kind == "int" else {"real": True}
    if dom.lo is not None and (dom.lo > 0 or (dom.lo == 0 and dom.lo_open)):
        flags["positive"] = True
    elif dom.lo is not None and dom.lo >= 0:
        flags["nonnegative"] = True
    return sp.Symbol(name, **flags)


# --------------------------------------------------------------------------------------------
# Relations and claims
# --------------------------------------------------------------------------------------------


def _relations(text: str, what: str, builder: ExpressionBuilder, index: int) -> list[Relation]:
    tree = parse_relation_text(text, what)
    if tree.kind != "chain":
        raise ClaimError(f"{what}: expected a relation (<=, >=, <, >, ==, !=), got an expression")
    ops = tree.value.split()
    if "!=" in ops and len(ops) > 1:
        raise ClaimError(f"{what}: '!=' cannot be chained with other relations")
    sides = [builder.build(part, builder.symbols) for part in tree.args]
    return [Relation(op, sides[i], sides[i + 1], text.strip(), index) for i, op in enumerate(ops)]  # type: ignore[arg-type]


def _declare(variables: list[ClaimVariable]) -> tuple[dict[str, sp.Symbol], dict[str, VarDomain]]:
    if len(variables) > MAX_VARIABLES:
        raise ClaimError(f"claim has {len(variables)} variables; the limit is {MAX_VARIABLES}")
    symbols: dict[str, sp.Symbol] = {}
    domains: dict[str, VarDomain] = {}
    for var in variables:
        name = var.name
        if "__" in name or not NAME.fullmatch(name):
            raise ClaimError(
                f"variable name {name[:50]!r} is invalid (a letter followed by letters, digits or _ ; at most 40 characters)"
            )
        if name in RESERVED:
            raise ClaimError(
                f"variable name {name!r} is reserved (it is a constant, a function or a keyword); rename it"
            )
        if name in symbols:
            raise ClaimError(f"variable {name!r} is declared twice")
        domains[name] = _domain(var)
        symbols[name] = _symbol(name, domains[name])
    return symbols, domains


def parse_claim(claim: Claim, *, display: bool = False) -> ParsedClaim:
    """Parse and validate a claim; raise ClaimError with a one-line reason when it is unusable.
    `display=True` keeps numbers and sums exactly as written (for rendering, not checking)."""
    if len(claim.assumptions) > MAX_ASSUMPTIONS:
        raise ClaimError(f"claim has {len(claim.assumptions)} assumptions; the limit is {MAX_ASSUMPTIONS}")
    symbols, domains = _declare(claim.variables)
    assumptions: list[Relation] = []
    conditions: list[Relation] = []
    unresolved = False
    boxes = {symbols[n]: Interval(d.lo, d.hi, d.lo_open, d.hi_open) for n, d in domains.items()}
    facts = SignFacts(boxes, [])
    for i, text in enumerate([*claim.assumptions, claim.conclusion]):
        last = i == len(claim.assumptions)
        what = "conclusion" if last else f"assumption {i + 1}"
        builder = ExpressionBuilder(symbols, what, display=display, facts=facts)
        relations = _relations(text, what, builder, -1 if last else i)
        _raise_unknown(builder)
        if not last:
            facts = _with_assumptions(facts, relations)
        unresolved |= builder.unresolved_sum
        conditions += [c for c in builder.conditions if all((r.op, r.lhs) != (c.op, c.lhs) for r in conditions)]
        if last:
            return ParsedClaim(
                claim, symbols, domains, assumptions, relations, conditions, unresolved, builder.conditions
            )
        assumptions += relations
    raise AssertionError("unreachable")


def _with_assumptions(facts: SignFacts, relations: list[Relation]) -> SignFacts:
    """The sign facts for what follows an assumption: its relations hold from here on."""
    premises = [p for rel in relations for p in premise_of(rel.op, rel.lhs, rel.rhs)]
    out = SignFacts(facts.boxes, [*facts.premises, *premises])
    out.nonzero = [*facts.nonzero, *(sp.expand(evaluated(r.lhs) - evaluated(r.rhs)) for r in relations if r.op == "!=")]
    return out


def parse_expression(text: str, variables: list[ClaimVariable], what: str = "expression") -> sp.Expr:
    """One expression (not a relation) over declared `variables`, through the same safe parser
    and size limits as a claim; for tools that compute with it (tools/symbolic_worker.py)."""
    symbols, _ = _declare(variables)
    builder = ExpressionBuilder(symbols, what)
    tree = parse_relation_text(text, what)
    if tree.kind == "chain":
        raise ClaimError(f"{what}: expected an expression, got a relation")
    value = builder.build(tree, symbols)
    _raise_unknown(builder)
    return value


def _raise_unknown(builder: ExpressionBuilder) -> None:
    if builder.unknown:
        names = ", ".join(repr(n) for n in builder.unknown)
        raise ClaimError(
            f"{builder.what}: unknown identifier(s) {names}; declare them as variables "
            f"(constants: pi, e; functions: {', '.join(sorted(FUNCTION_ARITY))})"
        )
