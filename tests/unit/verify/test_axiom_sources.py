"""Every SMT axiom family has a source, and each instance the instance-check knows is true:
checked numerically (sums with exact rationals for n up to 60)."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from eurekaclaw.verify import smt_axioms
from eurekaclaw.verify.axiom_sources import AXIOM_SOURCES, _candidates


def test_every_axiom_family_names_a_statement_and_a_source() -> None:
    assert len(AXIOM_SOURCES) >= 10
    for name, a in AXIOM_SOURCES.items():
        assert a.name == name and len(a.statement) > 10 and len(a.source) > 10
    # the module that hands the axioms to the solver points at the sources
    assert "axiom_sources.py" in (smt_axioms.__doc__ or "")


X = sp.Symbol("x", real=True)
N = sp.Symbol("n", integer=True, positive=True)
K = sp.Symbol("k", integer=True, positive=True)


@pytest.mark.parametrize(
    "p", [sp.Integer(-1), sp.Integer(-2), sp.Integer(-3), sp.Rational(-1, 2), sp.Rational(1, 2), 1, 2]
)
def test_sum_axioms_hold_exactly_up_to_60(p: sp.Rational) -> None:
    expr = sp.Sum(sp.Rational(3, 2) * K**p, (K, 1, N))
    found = list(_candidates(expr))
    assert found
    for name, a, _term in found:
        assert name in AXIOM_SOURCES
        for n in range(1, 61):
            value = a.xreplace({N: sp.Integer(n)}).doit()  # the finite sum, term by term
            assert sp.N(value, 50) >= -sp.Rational(1, 10**40), (name, p, n)


@pytest.mark.parametrize("x", ["1/100", "1/3", "1", "2", "7", "1000"])
def test_log_and_exp_axioms_hold(x: str) -> None:
    expr = sp.log(X) + sp.exp(X) + sp.exp(-X)
    for name, a, _term in _candidates(expr):
        assert name in AXIOM_SOURCES
        with mpmath.workdps(50):
            assert sp.N(a.xreplace({X: sp.Rational(x)}), 50) >= 0, (name, x)
