"""Expression forms shared by the verification modules.

claims.py builds every node that involves a variable *unevaluated*, as written: sympy's
automatic rewriting preserves values over the complex numbers but not definedness over the
reals (with x >= 0 it turns sqrt(x*y) into sqrt(x)*sqrt(y), undefined at (0, -1) where the
original is 0). Here: sympy's evaluated form for when only the value matters, negation and
subtraction that rewrite nothing, and the few sign rules the parser trusts to skip a
definedness condition the domains already guarantee.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import sympy as sp


def evaluated(expr: sp.Expr) -> sp.Expr:
    """`expr` as sympy builds it by default: every node re-created with automatic evaluation.
    Same value wherever the unevaluated form is defined, but possibly defined on a different
    set (sqrt(x*y) -> sqrt(x)*sqrt(y)); use it for values and comparisons, never for domains."""
    return _evaluated(expr)


def node_handler(table: Mapping[type, Callable[..., Any]], e: sp.Basic) -> Callable[..., Any] | None:
    """The translators' dispatch: the handler of the most specific sympy class of `e` in `table`
    (as an isinstance chain would pick it; the table's classes do not subclass one another)."""
    return next((table[cls] for cls in type(e).__mro__ if cls in table), None)


@lru_cache(maxsize=4096)
def _evaluated(expr: sp.Basic) -> sp.Basic:
    if not expr.args:
        return expr
    return expr.func(*[_evaluated(a) for a in expr.args])


def negate(expr: sp.Expr) -> sp.Expr:
    """-expr without sympy distributing or cancelling anything (numbers are negated)."""
    if expr.is_Number:
        return -expr
    return sp.Mul(sp.Integer(-1), expr, evaluate=False)


def subtract(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """a - b, unevaluated (so no term of a cancels against b and no root is split)."""
    if b == 0:
        return a
    if a == 0:
        return negate(b)
    return sp.Add(a, negate(b), evaluate=False)


def _positive(e: sp.Expr) -> bool:
    """e > 0 wherever it is defined, by a few structural rules over the domains' sign flags
    (sympy's own assumption system is not trusted here: it calls binomial(n, 3) non-positive
    for every integer n)."""
    if e.is_Number:
        return bool(e > 0)
    if e.is_Symbol or e in (sp.pi, sp.E):
        return e.is_positive is True
    if isinstance(e, sp.exp | sp.factorial):
        return True  # exp of a real; factorial(x) = gamma(x + 1) > 0 for x >= 0
    if isinstance(e, sp.Add):
        const, rest = _split_constant(e)
        return all(_nonnegative(a) for a in rest) and (const > 0 or (const == 0 and any(_positive(a) for a in rest)))
    if isinstance(e, sp.Mul):
        return all(_positive(a) for a in e.args)
    if isinstance(e, sp.Pow):
        return _positive(e.base)
    return False


def _split_constant(e: sp.Add) -> tuple[sp.Expr, list[sp.Expr]]:
    """The sum of an unevaluated (possibly nested) Add's numeric terms (n - 1 + 1 is n + 0),
    and the other terms."""
    terms: list[sp.Expr] = []
    stack = [e]
    while stack:
        for a in stack.pop().args:
            (stack if isinstance(a, sp.Add) else terms).append(a)
    return sp.Add(*[a for a in terms if a.is_Number]), [a for a in terms if not a.is_Number]


def _nonnegative(e: sp.Expr) -> bool:
    if _positive(e) or e == 0:
        return True
    if e.is_Symbol:
        return e.is_nonnegative is True
    if isinstance(e, sp.Abs):
        return True
    if isinstance(e, sp.Add):
        const, rest = _split_constant(e)
        return const >= 0 and all(_nonnegative(a) for a in rest)
    if isinstance(e, sp.Mul):
        return all(_nonnegative(a) for a in e.args)
    if isinstance(e, sp.Pow):
        exp = e.exp
        # an even power of a real, or a root (defined only for a non-negative base, and then >= 0)
        return _nonnegative(e.base) or (exp.is_Rational and (not exp.is_integer or exp.p % 2 == 0))
    return False


def known_sign(expr: sp.Expr, op: str) -> bool:
    """Whether `expr op 0` (op: >, >=, !=) holds wherever expr is defined, by the rules above."""
    return _positive(expr) if op in (">", "!=") else _nonnegative(expr)
