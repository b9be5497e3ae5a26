"""Signs the claim parser may rely on before it adds a definedness condition.

A power x^e is defined everywhere when e is a non-negative integer, and for x >= 0 when e > 0;
only where the sign of e (or of x) is unknown does the parser need a condition such as x != 0.
Adding one where it is not needed silently narrows the claim (`Σ_{k=1}^{n} x^k > 0` for x >= 0
would be checked for x != 0 only, and is false at 0). This module decides those signs soundly
from what the claim itself says: the declared variable ranges, the ranges of sum indices (their
bounds) and the assumptions written before the expression.

The method is plain interval arithmetic over exact rationals, plus one step of linear reasoning
with an assumption: e >= 0 when e = d + r with d >= 0 an assumption's difference and r >= 0 by
intervals (so `m >= n + 1` gives m - n >= 1). Every rule is an over-approximation: an answer
"unknown" only means a condition is still added, never that one is dropped wrongly.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from eurekaclaw.verify.forms import evaluated

MAX_LINEAR_TERMS = 40  # beyond this, an assumption is not tried as a linear certificate


@dataclass(frozen=True)
class Interval:
    """[lo, hi] with open ends where flagged; None = unbounded on that side."""

    lo: sp.Rational | None = None
    hi: sp.Rational | None = None
    lo_open: bool = False
    hi_open: bool = False

    def positive(self) -> bool:
        return self.lo is not None and (self.lo > 0 or (self.lo == 0 and self.lo_open))

    def nonnegative(self) -> bool:
        return self.lo is not None and self.lo >= 0

    def negative(self) -> bool:
        return self.hi is not None and (self.hi < 0 or (self.hi == 0 and self.hi_open))


UNBOUNDED = Interval()


def _point(value: sp.Rational) -> Interval:
    return Interval(value, value)


def _add(a: Interval, b: Interval) -> Interval:
    lo = None if a.lo is None or b.lo is None else a.lo + b.lo
    hi = None if a.hi is None or b.hi is None else a.hi + b.hi
    return Interval(lo, hi, a.lo_open or b.lo_open, a.hi_open or b.hi_open)


def _scale(a: Interval, c: sp.Rational) -> Interval:
    if c == 0:
        return _point(sp.Integer(0))
    lo = None if a.lo is None else a.lo * c
    hi = None if a.hi is None else a.hi * c
    if c > 0:
        return Interval(lo, hi, a.lo_open, a.hi_open)
    return Interval(hi, lo, a.hi_open, a.lo_open)


def _mul(a: Interval, b: Interval) -> Interval:
    """Only the sign-preserving cases (both factors bounded below by 0); anything else is
    unbounded, which is always a sound answer."""
    if a.lo is not None and a.lo.is_zero is False and a.lo == a.hi:
        return _scale(b, a.lo)
    if b.lo is not None and b.lo == b.hi:
        return _scale(a, b.lo)
    if a.nonnegative() and b.nonnegative():
        assert a.lo is not None and b.lo is not None
        hi = None if a.hi is None or b.hi is None else a.hi * b.hi
        return Interval(a.lo * b.lo, hi, a.lo_open or b.lo_open, a.hi_open or b.hi_open)
    return UNBOUNDED


def _integer_tighten(box: Interval) -> Interval:
    """For an integer-valued expression an open bound c (integer) becomes c + 1 or c - 1, and a
    fractional bound rounds inwards."""
    lo, hi = box.lo, box.hi
    if lo is not None:
        lo = sp.floor(lo) + 1 if box.lo_open and lo.is_integer else sp.ceiling(lo)
    if hi is not None:
        hi = sp.ceiling(hi) - 1 if box.hi_open and hi.is_integer else sp.floor(hi)
    return Interval(lo, hi)


class SignFacts:
    """What is known about the variables and sum indices in scope, and the assumptions that
    precede the expression being built."""

    def __init__(self, boxes: dict[sp.Symbol, Interval], premises: list[tuple[sp.Expr, bool]]) -> None:
        self.boxes = dict(boxes)
        # (d, strict): d >= 0 (d > 0 when strict) holds wherever the claim is asked about
        self.premises = premises
        self.nonzero: list[sp.Expr] = []  # d != 0 from assumptions written as `a != b`

    def with_index(self, index: sp.Symbol, low: sp.Expr, high: sp.Expr) -> SignFacts:
        """The facts inside a sum: the index lies between the bounds (an integer)."""
        lo, hi = self.interval(low), self.interval(high)
        box = _integer_tighten(Interval(lo.lo, hi.hi, lo.lo_open, hi.hi_open))
        # low <= index <= high, as facts the linear step can use (n - k + 1 > 0 for k <= n)
        inside = [*premise_of(">=", index, low), *premise_of("<=", index, high)]
        out = SignFacts({**self.boxes, index: box}, [*self.premises, *inside])
        out.nonzero = self.nonzero
        return out

    # -- intervals ------------------------------------------------------------------------------
    def interval(self, expr: sp.Expr) -> Interval:
        try:
            box = self._interval(evaluated(expr))
        except (TypeError, ValueError, RecursionError):
            return UNBOUNDED
        return _integer_tighten(box) if expr.is_integer else box

    def _interval(self, e: sp.Expr) -> Interval:
        if e.is_Rational:
            return _point(e)
        if e.is_Symbol:
            return self.boxes.get(e, _flags(e))
        if isinstance(e, sp.Add):
            out = _point(sp.Integer(0))
            for a in e.args:
                out = _add(out, self._interval(a))
            return out
        if isinstance(e, sp.Mul):
            out = _point(sp.Integer(1))
            for a in e.args:
                out = _mul(out, self._interval(a))
            return out
        if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            base = self._interval(e.base)
            if base.nonnegative() or int(e.exp) % 2 == 0:
                if base.nonnegative():
                    assert base.lo is not None
                    return Interval(base.lo ** int(e.exp), None, base.lo_open)
                return Interval(sp.Integer(0), None)
            return UNBOUNDED
        if isinstance(e, sp.Pow):
            return _power(self._interval(e.base), e.exp)
        if isinstance(e, sp.exp) or (e.is_number and e.is_positive is True):
            return Interval(sp.Integer(0), None, lo_open=True)
        if isinstance(e, sp.Abs):
            return Interval(sp.Integer(0), None)
        return UNBOUNDED

    # -- signs ----------------------------------------------------------------------------------
    def is_nonnegative(self, expr: sp.Expr) -> bool:
        return self._decide(expr, strict=False)

    def is_positive(self, expr: sp.Expr) -> bool:
        return self._decide(expr, strict=True)

    def is_nonzero(self, expr: sp.Expr) -> bool:
        if self.is_positive(expr) or self.is_positive(sp.Mul(-1, expr)):
            return True
        e = sp.expand(evaluated(expr))
        return any(sp.expand(e - d) == 0 or sp.expand(e + d) == 0 for d in self.nonzero)

    def _decide(self, expr: sp.Expr, *, strict: bool) -> bool:
        box = self.interval(expr)
        if box.positive() or (not strict and box.nonnegative()):
            return True
        try:
            e = sp.expand(evaluated(expr))
        except (TypeError, ValueError, RecursionError):
            return False
        if len(sp.Add.make_args(e)) > MAX_LINEAR_TERMS:
            return False
        for d, d_strict in self.premises:
            rest = self.interval(sp.expand(e - d))
            if rest.positive() or (rest.nonnegative() and (d_strict or not strict)):
                return True
        return False


def _power(base: Interval, exp: sp.Expr) -> Interval:
    """b^e for a base of known sign: positive for b > 0 (any real e), non-negative for b >= 0
    and e > 0 (a root or a positive power)."""
    if base.positive():
        return Interval(sp.Integer(0), None, lo_open=True)
    if base.nonnegative() and exp.is_positive is True:
        return Interval(sp.Integer(0), None)
    return UNBOUNDED


def _flags(sym: sp.Symbol) -> Interval:
    if sym.is_positive:
        return Interval(sp.Integer(0), None, lo_open=True)
    if sym.is_nonnegative:
        return Interval(sp.Integer(0), None)
    return UNBOUNDED


def premise_of(op: str, lhs: sp.Expr, rhs: sp.Expr) -> list[tuple[sp.Expr, bool]]:
    """The facts d >= 0 (strict: d > 0) that an assumption `lhs op rhs` states."""
    try:
        diff = sp.expand(evaluated(lhs) - evaluated(rhs))
    except (TypeError, ValueError, RecursionError):
        return []
    if len(sp.Add.make_args(diff)) > MAX_LINEAR_TERMS:
        return []
    if op in (">=", ">"):
        return [(diff, op == ">")]
    if op in ("<=", "<"):
        return [(-diff, op == "<")]
    if op == "==":
        return [(diff, False), (-diff, False)]
    return []
