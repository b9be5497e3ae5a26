"""intervals: sound, plain interval arithmetic (no factoring, no case splits)."""

from __future__ import annotations

import pytest
import sympy as sp

from eurekaclaw.verify.intervals import REAL, Interval, bounds, decides

x, t = sp.symbols("x t", real=True)
UNIT = Interval(sp.Integer(0), sp.Integer(1))
POS = Interval(sp.Integer(0), sp.oo)


@pytest.mark.parametrize(
    ("expr", "box", "lo", "hi"),
    [
        (x**2, {x: Interval(sp.Integer(-2), sp.Integer(1))}, 0, 4),
        (x**3, {x: Interval(sp.Integer(-2), sp.Integer(1))}, -8, 1),
        (sp.Abs(x), {x: Interval(sp.Integer(-3), sp.Integer(1))}, 0, 3),
        (t * (1 - x), {x: UNIT, t: POS}, 0, sp.oo),
        (1 / x, {x: Interval(sp.Integer(1), sp.Integer(2))}, sp.Rational(1, 2), 1),
        (sp.sqrt(x), {x: Interval(sp.Integer(0), sp.Integer(4))}, 0, 2),
        (sp.exp(x), {x: Interval(-sp.oo, sp.Integer(0))}, 0, 1),
        (sp.Min(x, 1), {x: REAL}, -sp.oo, 1),
    ],
)
def test_exact_ranges(expr: sp.Expr, box: dict, lo: object, hi: object) -> None:
    rng = bounds(expr, box)
    assert rng is not None and rng.lo == lo and rng.hi == hi


def test_transcendental_ends_are_widened_outward() -> None:
    rng = bounds(sp.log(x), {x: Interval(sp.Integer(1), sp.Integer(2))})
    assert rng is not None and rng.lo == 0 and rng.hi > sp.log(2) and rng.hi - sp.log(2) < sp.Rational(1, 10**20)
    pi = bounds(sp.pi * x, {x: Interval(sp.Integer(1), sp.Integer(1))})
    assert pi is not None and pi.lo < sp.pi < pi.hi


@pytest.mark.parametrize(
    ("expr", "box"),
    [
        (1 / x, {x: Interval(sp.Integer(-1), sp.Integer(1))}),  # division by a range containing 0
        (x**t, {x: POS, t: POS}),  # variable exponent
        (sp.factorial(x), {x: POS}),  # no rule
    ],
)
def test_unsure_is_none(expr: sp.Expr, box: dict) -> None:
    assert bounds(expr, box) is None


def test_plain_arithmetic_does_not_complete_squares() -> None:
    assert not decides(">=", x**2 - 2 * x + 1, {x: REAL})
    assert decides(">=", (x - 1) ** 2, {x: REAL})
    assert decides(">=", t - t * x, {x: UNIT, t: POS}) is False  # t occurs twice: not decided as written
    assert decides(">=", t * (1 - x), {x: UNIT, t: POS})
