"""Property test: a rendered claim says what the claim says.

Generated expressions over the claim language are rendered; the plain form of each side, read
back by the claim parser, has the same value at sample points, and the LaTeX form never puts an
integer right before a fraction (`1 \\frac{1}{k^{2}}` reads as the mixed number 1¹⁄ₖ²)."""

from __future__ import annotations

import re

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.exact import evaluate_claim_at
from eurekaclaw.verify.grammar import ClaimError
from eurekaclaw.verify.render import _Plain, claim_latex

VARS = [ClaimVariable(name="x", domain="positive"), ClaimVariable(name="n", domain="natural", low=1)]
MIXED = re.compile(r"(?<![\w{}^_\\])\d+(\.\d+)? *\\frac")

leaf = st.sampled_from(["x", "n", "1", "2", "3", "1/2", "10"])


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    )
    power = st.tuples(children, st.sampled_from(["2", "3", "-1", "1/2"])).map(lambda t: f"({t[0]})^{t[1]}")
    unit = children.map(lambda c: f"1/{c}")
    calls = st.tuples(st.sampled_from(["sqrt", "log", "exp", "abs"]), children).map(lambda t: f"{t[0]}({t[1]})")
    sums = children.map(lambda c: f"Sum(1/k^2 + {c}, (k, 1, n))")
    return st.one_of(binary, power, unit, calls, sums)


expressions = st.recursive(leaf, _combine, max_leaves=6)
POINTS = [{"x": "1/3", "n": 1}, {"x": 2, "n": 3}, {"x": "7/5", "n": 5}]


def _plain_side(expr: sp.Expr) -> str:
    text = _Plain().doprint(expr)
    return text.replace("π", "pi")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
def test_rendered_claim_reads_back_as_the_claim(text: str) -> None:
    claim = Claim(variables=VARS, conclusion=f"{text} <= 10^6")
    try:
        shown = parse_claim(claim, display=True)
    except ClaimError:
        return  # not a claim (e.g. a sum index condition it cannot guarantee)
    latex = claim_latex(claim)
    assert not MIXED.search(latex), latex
    plain = _plain_side(shown.conclusion[0].lhs)
    plain = re.sub(r"\|([^|]*)\|", r"abs(\1)", plain)
    back = Claim(variables=VARS, conclusion=f"{plain} <= 10^6")
    try:
        parse_claim(back)
    except ClaimError as exc:  # the rendered text must itself be a claim
        raise AssertionError(f"{text!r} rendered as {plain!r}, which does not parse: {exc}") from exc
    for point in POINTS:
        a, b = evaluate_claim_at(claim, point), evaluate_claim_at(back, point)
        if a.status in ("holds", "fails") and b.status in ("holds", "fails"):
            assert a.holds == b.holds, (text, plain, point)
            # same value: the slack is 10^6 minus the side
            assert abs(a.slack - b.slack) <= 1e-9 * (1 + abs(a.slack)), (text, plain, point, a.slack, b.slack)
