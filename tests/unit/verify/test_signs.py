"""signs.py: the sign facts the parser relies on before it adds a definedness condition, and
the conditions it still adds (ParsedClaim.definedness)."""

from __future__ import annotations

import pytest
import sympy as sp

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify.claims import parse_claim
from eurekaclaw.verify.signs import Interval, SignFacts, premise_of

X, Y = sp.symbols("x y", real=True)
M, N, K = sp.symbols("m n k", integer=True)


def test_intervals_over_ranges() -> None:
    facts = SignFacts({X: Interval(sp.Integer(0), None), M: Interval(sp.Integer(-3), sp.Integer(-1))}, [])
    assert facts.is_nonnegative(X) and not facts.is_positive(X)
    assert facts.is_positive(X + 1) and facts.is_positive(X**2 + 1)
    assert facts.is_positive(sp.Mul(-1, M)) and facts.is_nonzero(M)
    assert not facts.is_nonnegative(Y) and not facts.is_nonzero(X)
    assert facts.is_nonnegative(sp.sqrt(X)) and facts.is_positive(sp.exp(Y))


def test_sum_index_range_and_linear_step() -> None:
    facts = SignFacts({N: Interval(sp.Integer(1), None)}, premise_of(">=", M, N + 1))
    assert facts.is_positive(M - N)  # m >= n + 1
    assert not SignFacts({}, []).is_nonnegative(M - N)
    inside = facts.with_index(K, sp.Integer(1), N)
    assert inside.is_positive(K) and inside.is_positive(N - K + 1)
    assert not inside.is_positive(K - 2)


def test_strict_assumptions_and_open_bounds() -> None:
    facts = SignFacts({X: Interval(sp.Integer(0), None, lo_open=True)}, premise_of("<", Y, X))
    assert facts.is_positive(X) and facts.is_positive(X - Y)
    integer = SignFacts({M: Interval(sp.Integer(0), None, lo_open=True)}, [])
    assert integer.interval(M).lo == 1  # an integer above 0 is at least 1


def _conds(variables: list[ClaimVariable], conclusion: str, *assumptions: str) -> list[tuple[str, str]]:
    parsed = parse_claim(Claim(variables=variables, assumptions=list(assumptions), conclusion=conclusion))
    return [(r.op, str(r.lhs)) for r in parsed.definedness]


@pytest.mark.parametrize(
    ("variables", "conclusion", "assumptions", "expected"),
    [
        ([ClaimVariable(name="x")], "1/x != 0", (), [("!=", "x")]),
        ([ClaimVariable(name="x")], "1/x != 0", ("x > 0",), []),
        ([ClaimVariable(name="x"), ClaimVariable(name="y")], "x^y >= 0", ("y > 0",), [(">=", "x")]),
        ([ClaimVariable(name="x"), ClaimVariable(name="y")], "x^y >= 0", (), [(">", "x")]),
        ([ClaimVariable(name="x"), ClaimVariable(name="n", domain="natural")], "x^n >= 0", (), []),
        (
            [ClaimVariable(name="x"), ClaimVariable(name="n", domain="integer")],
            "Sum(x^(k - n), (k, n, n + 3)) >= 0",
            (),
            [],
        ),
        ([ClaimVariable(name="x"), ClaimVariable(name="m", domain="integer")], "x^m >= 0", (), [("!=", "x")]),
    ],
)
def test_definedness_only_where_needed(
    variables: list[ClaimVariable], conclusion: str, assumptions: tuple[str, ...], expected: list[tuple[str, str]]
) -> None:
    assert _conds(variables, conclusion, *assumptions) == expected


def test_an_assumption_cannot_justify_itself() -> None:
    """Only assumptions written *before* an expression count for it."""
    assert _conds([ClaimVariable(name="x")], "x >= 0", "1/x > 0", "x > 0") == [("!=", "x")]
