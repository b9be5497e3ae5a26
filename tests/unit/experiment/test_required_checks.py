"""Violated theorem bounds stick: later experiments on the same statement re-check them."""

from __future__ import annotations

from eurekaclaw.agents.experiment.violations import apply_required, same_theorem
from eurekaclaw.types.artifacts import BoundCheck, Claim, ClaimVariable, ExperimentResult, LemmaNode, TheoryState

CLAIM = Claim(variables=[ClaimVariable(name="T", domain="natural", low=1)], conclusion="log(T) >= 0")


def theory(statement: str = "S", formal: str = "F", claim: Claim | None = CLAIM) -> TheoryState:
    root = LemmaNode(id="T", statement=formal, is_root=True, claim=claim)
    return TheoryState(informal_statement=statement, formal_statement=formal, lemma_dag={"T": root}, status="proved")


def violated() -> ExperimentResult:
    check = BoundCheck(
        name="b@s", horizon=100, empirical_mean=50.0, std_error=1.0, theoretical=10.0, held=False, from_theorem=True
    )
    return ExperimentResult(
        spec={"checked": {"bounds": {"b": {"expression": "2*log(T)", "direction": "upper"}}, "series": {"s": {}}}},
        bound_checks=[check],
    )


def test_own_violations_become_required_and_are_kept_once() -> None:
    first = violated()
    assert apply_required(None, theory(), first) == 0
    assert len(first.required_checks) == 1 and first.required_checks[0].statement == "S"
    second = ExperimentResult()
    assert apply_required(first, theory(), second) == 1
    assert len(second.required_checks) == 1 and second.violations
    assert any("required check b@s" in n for n in second.notes)


def test_another_statement_carries_nothing() -> None:
    first = violated()
    apply_required(None, theory(), first)
    other = ExperimentResult()
    assert apply_required(first, theory(statement="another"), other) == 0 and not other.violations


def test_a_changed_theorem_is_checked_against_its_own_bound_of_that_name() -> None:
    first = violated()
    apply_required(None, theory(), first)
    changed = theory(formal="F2", claim=Claim(variables=CLAIM.variables, conclusion="log(T) >= -1"))
    loose = ExperimentResult(spec={"checked": {"bounds": {"b": {"expression": "20*log(T)", "direction": "upper"}}}})
    assert apply_required(first, changed, loose) == 0  # 20 log 100 ≈ 92 > 50 + z·1: holds
    dropped = ExperimentResult()
    assert apply_required(first, changed, dropped) == 1  # no bound of that name: the old one


def test_same_theorem_up_to_renaming_or_wording() -> None:
    first = violated()
    apply_required(None, theory(), first)
    req = first.required_checks[0]
    renamed = Claim(variables=[ClaimVariable(name="n", domain="natural", low=1)], conclusion="log(n) >= 0")
    assert same_theorem(req, theory(formal="reworded", claim=renamed))
    assert same_theorem(req.model_copy(update={"root_claim": None}), theory(formal=" f ", claim=None))
    assert not same_theorem(req.model_copy(update={"root_claim": None}), theory(formal="G", claim=None))
