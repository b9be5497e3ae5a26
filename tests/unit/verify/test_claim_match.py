"""claim_match: refuted claims recognised up to renaming, stored counterexamples re-used under
renamings, and the root claim's scope against the statement's claim (table tests)."""

from __future__ import annotations

from typing import Any

import pytest

from eurekaclaw.types.artifacts import Claim, ClaimVariable, Counterexample
from eurekaclaw.verify.claim_match import compare_scope, refuted_by, same_up_to_renaming


def V(name: str, domain: str = "real", **kw: Any) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)


def C(conclusion: str, *assumptions: str, variables: list[ClaimVariable] | None = None) -> Claim:
    return Claim(variables=variables or [V("x")], assumptions=list(assumptions), conclusion=conclusion)


def cx(claim: Claim, **point: Any) -> Counterexample:
    return Counterexample(lemma_id="L", assignment=point, confirmed=True, claim=claim, checker="falsifier")


@pytest.mark.parametrize(
    ("new", "old", "renaming"),
    [
        (C("y^2 <= y", variables=[V("y")]), C("x^2 <= x"), {"y": "x"}),
        (C("1 >= y", variables=[V("y")]), C("x <= 1"), {"y": "x"}),
        (C("2*y <= 2", variables=[V("y")]), C("x <= 1"), {"y": "x"}),
        (C("q + p >= 2*p*q", variables=[V("p"), V("q")]), C("a + b >= 2*a*b", variables=[V("a"), V("b")]), None),
        (
            C("u - v >= 1", "v >= 0", variables=[V("u"), V("v", "nonnegative")]),
            C("a - b >= 1", "b >= 0", variables=[V("a"), V("b", "nonnegative")]),
            {"u": "a", "v": "b"},
        ),
    ],
)
def test_same_up_to_renaming(new: Claim, old: Claim, renaming: dict[str, str] | None) -> None:
    found = same_up_to_renaming(new, old)
    if renaming is None:
        assert found is not None and set(found.values()) == {"a", "b"}
    else:
        assert found == renaming


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (C("y^2 <= y", variables=[V("y", "positive")]), C("x^2 <= x")),  # domains differ
        (C("y^2 <= y", "y >= 2", variables=[V("y")]), C("x^2 <= x")),  # an extra assumption
        (C("y^2 <= 2*y", variables=[V("y")]), C("x^2 <= x")),  # another constant
        (C("y^2 < y", variables=[V("y")]), C("x^2 <= x")),  # strictness
    ],
)
def test_not_the_same_claim(new: Claim, old: Claim) -> None:
    assert same_up_to_renaming(new, old) is None


def test_a_stored_point_refutes_a_renamed_claim_and_says_how() -> None:
    old = C("x^2 >= x")
    match = refuted_by(C("t^2 >= t", variables=[V("t")]), [cx(old, x=0.5)])
    assert match is not None and match.assignment == {"t": 0.5} and "t for x" in match.detail


def test_the_own_names_are_tried_first_and_unconfirmed_points_ignored() -> None:
    claim = C("x <= y", variables=[V("x"), V("y")])
    match = refuted_by(claim, [cx(C("x <= y", variables=[V("x"), V("y")]), x=2, y=1)])
    assert match is not None and match.assignment == {"x": 2, "y": 1}
    loose = Counterexample(lemma_id="L", assignment={"x": 2, "y": 1}, confirmed=False)
    assert refuted_by(claim, [loose]) is None


def test_an_experiment_counterexample_is_never_a_structural_match() -> None:
    root = C("x >= 0", variables=[V("x", "nonnegative")])
    stat = Counterexample(lemma_id="T", assignment={"means": [0.5]}, confirmed=True, claim=root, checker="experiment")
    assert refuted_by(root, [stat]) is None


@pytest.mark.parametrize(
    ("root", "statement", "relation", "fails"),
    [
        (C("x^2 >= x", "x >= 1"), C("x^2 >= x"), "narrower", True),
        (C("x^2 >= x - 1", variables=[V("x", "nonnegative")]), C("x^2 >= x - 1"), "narrower", False),
        (C("x^2 >= x - 1"), C("x^2 >= x"), "differs", False),
        (C("x^2 + 1 >= 2*x"), C("x^2 + 1 >= 2*x"), "same", False),
        (C("y^2 + 1 >= 2*y", variables=[V("y")]), C("x^2 + 1 >= 2*x"), "same", False),
        (C("x + 1/x >= 2", "x > 0"), C("x + 1/x >= 2", variables=[V("x", "positive")]), "same", False),
        (C("x^2 >= 0", "x >= 0"), C("x^2 >= 0", "x >= 1"), "same", False),  # the root is broader
        (C("1/x >= 0", variables=[V("x", "positive")]), C("1/x >= 0", "x != 0"), "narrower", True),
    ],
)
def test_compare_scope(root: Claim, statement: Claim, relation: str, fails: bool) -> None:
    decision = compare_scope(root, statement)
    assert decision.relation == relation, decision.sentence
    assert decision.statement_fails_at_witness is fails
    if relation == "narrower":
        assert decision.witness and decision.differences


def test_the_narrowing_sentence_says_what_was_proved_and_what_was_asked() -> None:
    decision = compare_scope(C("x^2 >= x", "x >= 1"), C("x^2 >= x"))
    assert decision.sentence.startswith("proved for x ≥ 1; the statement asked for every real x")
    assert "the statement is false at x = " in decision.sentence


def test_an_unparseable_side_is_unknown_never_same() -> None:
    assert compare_scope(C("y > 0"), C("x > 0")).relation == "unknown"
