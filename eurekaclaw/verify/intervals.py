"""Sound interval arithmetic over a claim's sympy expressions, for the triviality check.

`bounds(expr, box)` returns an Interval that contains every value `expr` takes when each
variable ranges over its interval in `box` (where the expression is defined), or None when the
evaluator is unsure (a function it does not know, a sum, a power with a variable exponent, a
division by an interval that contains 0). It never claims a range it cannot justify: endpoints
are exact rationals, or ±oo; a transcendental endpoint is computed with mpmath at 40 digits and
widened outward before it becomes a rational.

This is *plain* interval arithmetic on the expression as given: no case splits, no derivatives,
no polynomial factoring. `x^2 - 2x + 1` over the reals gives (-oo, oo), so a claim that needs
real work (completing the square) is never decided by it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeAlias

import mpmath
import sympy as sp

Bound: TypeAlias = sp.Expr  # a Rational, sp.oo or -sp.oo

MP_DIGITS = 40
WIDEN = sp.Rational(1, 10**30)  # relative outward widening of a transcendental endpoint
MAX_NODES = 400


@dataclass(frozen=True)
class Interval:
    lo: Bound
    hi: Bound

    @property
    def bounded(self) -> bool:
        return self.lo.is_finite is True and self.hi.is_finite is True

    def contains_zero(self) -> bool:
        return bool(self.lo <= 0 <= self.hi)


REAL = Interval(-sp.oo, sp.oo)


class _Unsure(Exception):
    """The evaluator cannot bound this expression soundly."""


def _mul_bound(a: Bound, b: Bound) -> Bound:
    # Values are finite reals: 0 times an unbounded factor is 0, never nan.
    if a == 0 or b == 0:
        return sp.Integer(0)
    return a * b


def _mul(a: Interval, b: Interval) -> Interval:
    products = [_mul_bound(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Interval(min(products), max(products))


def _add(a: Interval, b: Interval) -> Interval:
    lo = -sp.oo if -sp.oo in (a.lo, b.lo) else a.lo + b.lo
    hi = sp.oo if sp.oo in (a.hi, b.hi) else a.hi + b.hi
    return Interval(lo, hi)


def _neg(a: Interval) -> Interval:
    return Interval(-a.hi, -a.lo)


def _reciprocal(a: Interval) -> Interval:
    if a.contains_zero():
        raise _Unsure("division by an interval that contains 0")
    lo = sp.Integer(0) if a.hi.is_infinite else 1 / a.hi
    hi = sp.Integer(0) if a.lo.is_infinite else 1 / a.lo
    return Interval(min(lo, hi), max(lo, hi))


def _int_power(a: Interval, n: int) -> Interval:
    if n == 0:
        return Interval(sp.Integer(1), sp.Integer(1))
    if n < 0:
        return _reciprocal(_int_power(a, -n))
    lo, hi = a.lo**n, a.hi**n
    if n % 2 == 1:
        return Interval(lo, hi)
    if a.contains_zero():
        return Interval(sp.Integer(0), max(lo, hi))
    return Interval(min(lo, hi), max(lo, hi))


def _rational(value: mpmath.mpf, direction: int) -> Bound:
    """A rational just outside `value` (direction -1: below, +1: above)."""
    if mpmath.isinf(value):
        return sp.oo if value > 0 else -sp.oo
    man, exp = mpmath.mpf(value).man_exp
    exact = sp.Integer(man) * sp.Integer(2) ** int(exp)
    slack = abs(exact) * WIDEN + sp.Rational(1, 10**MP_DIGITS)
    return exact + direction * slack


def _monotone(
    fn: Callable[[mpmath.mpf], mpmath.mpf],
    a: Interval,
    exact: Callable[[sp.Expr], sp.Expr],
    lo_limit: Bound | None = None,
) -> Interval:
    """An increasing function applied to both ends (clamped to where it is defined); an end
    whose value is rational (exp(0) = 1, sqrt(4) = 2) stays exact."""
    lo, hi = a.lo, a.hi
    if lo_limit is not None and lo < lo_limit:
        lo = lo_limit
    ends: list[Bound] = []
    with mpmath.workdps(MP_DIGITS + 10):
        for value, direction in ((lo, -1), (hi, 1)):
            if value.is_infinite:
                at_end = fn(mpmath.inf if value > 0 else -mpmath.inf)
                ends.append(sp.Integer(0) if at_end == 0 else _rational(at_end, direction))
                continue
            known = exact(value)
            if known.is_Rational:
                ends.append(known)
            else:
                ends.append(_rational(fn(mpmath.mpf(sp.Rational(value).p) / sp.Rational(value).q), direction))
    return Interval(ends[0], ends[1])


def _power(base: Interval, exponent: sp.Expr) -> Interval:
    if not exponent.is_Rational:
        raise _Unsure("a power with a non-constant exponent")
    if exponent.is_Integer:
        return _int_power(base, int(exponent))
    # a fractional power is defined for a non-negative base only (the parser requires it)
    clamped = Interval(max(base.lo, sp.Integer(0)), base.hi)
    if clamped.hi < 0:
        raise _Unsure("a fractional power of a negative range")
    p, q = int(exponent.p), int(exponent.q)
    root = _monotone(lambda v: mpmath.root(v, q) if v != mpmath.inf else mpmath.inf, clamped, lambda v: sp.root(v, q))
    root = Interval(max(root.lo, sp.Integer(0)), root.hi)
    return _int_power(root, p)


def _abs(a: Interval) -> Interval:
    if a.contains_zero():
        return Interval(sp.Integer(0), max(-a.lo, a.hi))
    ends = sorted([abs(a.lo), abs(a.hi)])
    return Interval(ends[0], ends[1])


def _exp(v: mpmath.mpf) -> mpmath.mpf:
    return mpmath.mpf(0) if v == -mpmath.inf else mpmath.exp(v)


def _log(v: mpmath.mpf) -> mpmath.mpf:
    return -mpmath.inf if v == 0 else mpmath.log(v)


def _function(e: sp.Expr, args: list[Interval]) -> Interval:
    if isinstance(e, sp.Abs):
        return _abs(args[0])
    if isinstance(e, sp.exp):
        return _monotone(_exp, args[0], sp.exp)
    if isinstance(e, sp.log) and len(args) == 1:
        if args[0].hi <= 0:
            raise _Unsure("log of a non-positive range")
        return _monotone(_log, args[0], lambda v: sp.log(v) if v > 0 else sp.nan, sp.Integer(0))
    if isinstance(e, sp.floor):
        return Interval(*(sp.floor(x) if x.is_finite else x for x in (args[0].lo, args[0].hi)))
    if isinstance(e, sp.ceiling):
        return Interval(*(sp.ceiling(x) if x.is_finite else x for x in (args[0].lo, args[0].hi)))
    if isinstance(e, sp.Min):
        return Interval(min(a.lo for a in args), min(a.hi for a in args))
    if isinstance(e, sp.Max):
        return Interval(max(a.lo for a in args), max(a.hi for a in args))
    if isinstance(e, sp.sin | sp.cos):
        return Interval(sp.Integer(-1), sp.Integer(1))
    raise _Unsure(f"no interval rule for {type(e).__name__}")


class _Evaluator:
    def __init__(self, box: Mapping[sp.Symbol, Interval]) -> None:
        self.box = box
        self.nodes = 0

    def run(self, e: sp.Expr) -> Interval:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Unsure("expression too large")
        if e.is_Rational:
            return Interval(e, e)
        if e.is_Symbol:
            if e not in self.box:
                raise _Unsure(f"no range for {e}")
            return self.box[e]
        if e.is_number:
            return self._constant(e)
        if isinstance(e, sp.Add):
            acc = Interval(sp.Integer(0), sp.Integer(0))
            for arg in e.args:
                acc = _add(acc, self.run(arg))
            return acc
        if isinstance(e, sp.Mul):
            acc = Interval(sp.Integer(1), sp.Integer(1))
            for arg in e.args:
                acc = _mul(acc, self.run(arg))
            return acc
        if isinstance(e, sp.Pow):
            return _power(self.run(e.base), e.exp)
        if isinstance(e, sp.Function | sp.Abs | sp.Min | sp.Max):
            return _function(e, [self.run(a) for a in e.args])
        raise _Unsure(f"no interval rule for {type(e).__name__}")

    @staticmethod
    def _constant(e: sp.Expr) -> Interval:
        value = sp.N(e, MP_DIGITS)
        if not value.is_real or not value.is_finite:
            raise _Unsure(f"constant {e} is not a finite real")
        exact = sp.Rational(str(value))
        slack = abs(exact) * WIDEN + sp.Rational(1, 10**MP_DIGITS)
        return Interval(exact - slack, exact + slack)


def bounds(expr: sp.Expr, box: Mapping[sp.Symbol, Interval]) -> Interval | None:
    """An interval containing every value of `expr` over `box`, or None when unsure."""
    try:
        return _Evaluator(box).run(expr)
    except _Unsure:
        return None
    except (TypeError, ValueError, ArithmeticError):  # an exotic node: unsure, never a range
        return None


def decides(kind: str, expr: sp.Expr, box: Mapping[sp.Symbol, Interval]) -> bool:
    """True when interval arithmetic shows `expr kind 0` for every point of `box`
    (kind: ">=", ">", "==", "!="); False when it cannot show it."""
    rng = bounds(expr, box)
    if rng is None:
        return False
    if kind == ">=":
        return bool(rng.lo >= 0)
    if kind == ">":
        return bool(rng.lo > 0)
    if kind == "==":
        return bool(rng.lo == 0 and rng.hi == 0)
    if kind == "!=":
        return bool(rng.lo > 0 or rng.hi < 0)
    return False
