"""decide_level and the theorem's word (agents/theory/level.py): one table, every rule."""

from __future__ import annotations

import pytest

from eurekaclaw.agents.theory.level import ReviewEvidence, decide_level, theorem_gaps, theorem_verdict
from eurekaclaw.types.artifacts import (
    CheckResult,
    Claim,
    ClaimVariable,
    LemmaNode,
    ProofRecord,
    TheoryState,
)

CLAIM = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 - 2*x + 1 >= 0")
AXIOM = Claim(variables=[ClaimVariable(name="x", domain="positive")], conclusion="log(x) <= x - 1")


def node(*, source: str = "claim", flags: tuple[str, ...] = (), claim: Claim = CLAIM) -> LemmaNode:
    return LemmaNode(id="L", statement="s", claim=claim, statement_source=source, claim_flags=list(flags))  # type: ignore[arg-type]


def check(checker: str, verdict: str, **kw: object) -> CheckResult:
    return CheckResult(checker=checker, verdict=verdict, **kw)  # type: ignore[arg-type]


Z3 = check("z3", "passed")
CVC5 = check("cvc5", "passed")
COQ = check("coq", "passed")
COQ_REJECTED = check("coq", "failed", detail="Error: nested proofs")
FALSIFIER_OK = check("falsifier", "passed")
FALSIFIER_HIT = check("falsifier", "failed", counterexample={"x": 0.5})
Z3_UNKNOWN = check("z3", "unknown")
CITED = check("citation", "passed", detail="verified")
COUNTS = ReviewEvidence(passed=True, counts=True)
WEAK = ReviewEvidence(passed=True, counts=False)
FAILED_REVIEW = ReviewEvidence(passed=False, counts=True)

TABLE = [
    # (name, node, checks, review, citation, level, words in the note, words in the supporting list)
    ("coq proves the claim", node(), [FALSIFIER_OK, Z3, COQ], COUNTS, None, "formal", "", ""),
    ("z3 proves the claim", node(), [FALSIFIER_OK, Z3], COUNTS, None, "smt", "", ""),
    ("cvc5 alone proves it", node(), [Z3_UNKNOWN, CVC5], None, None, "smt", "", ""),
    ("smt outranks a weak review", node(), [Z3], WEAK, None, "smt", "", ""),
    ("a rejected formal proof never vetoes", node(), [Z3, COQ_REJECTED], COUNTS, None, "smt", "", ""),
    ("falsifier alone is no proof", node(), [FALSIFIER_OK, Z3_UNKNOWN], COUNTS, None, "reviewed", "", ""),
    ("a counterexample leaves nothing", node(), [FALSIFIER_HIT, Z3], COUNTS, CITED, "unverified", "falsifier", ""),
    ("trivial claim: review decides", node(flags=("read off",)), [Z3], COUNTS, None, "reviewed", "too trivial", "Z3"),
    ("trivial claim, no review", node(flags=("read off",)), [Z3], None, None, "unverified", "too trivial", "Z3"),
    ("statement says more", node(source="prose"), [Z3, COQ], COUNTS, None, "reviewed", "says more", "Coq and Z3"),
    ("axiom instance is cited", node(claim=AXIOM), [Z3], COUNTS, None, "cited", "log-tangent", "Z3"),
    ("verified citation", node(), [FALSIFIER_OK], None, CITED, "cited", "", ""),
    ("citation beats a trivial check", node(flags=("read off",)), [Z3], None, CITED, "cited", "too trivial", "Z3"),
    ("weak reviewer", node(), [FALSIFIER_OK], WEAK, None, "unverified", "too weak", ""),
    ("failed review", node(), [FALSIFIER_OK], FAILED_REVIEW, None, "unverified", "no review passed", ""),
    ("nothing at all", node(), [], None, None, "unverified", "no review passed", ""),
]


@pytest.mark.parametrize(
    ("lemma", "checks", "review", "citation", "level", "note", "supporting"),
    [row[1:] for row in TABLE],
    ids=[row[0] for row in TABLE],
)
def test_decide_level(
    lemma: LemmaNode,
    checks: list[CheckResult],
    review: ReviewEvidence | None,
    citation: CheckResult | None,
    level: str,
    note: str,
    supporting: str,
) -> None:
    decision = decide_level(lemma, checks, review=review, citation=citation)
    assert decision.level == level
    assert note in decision.note
    if supporting:
        assert any(supporting in s for s in decision.supporting), decision.supporting
    else:
        assert decision.supporting == []


def record(lid: str, level: str, *, self_review: bool = False) -> ProofRecord:
    return ProofRecord(lemma_id=lid, proof="p", verification_level=level, self_review=self_review)  # type: ignore[arg-type]


def state(records: list[ProofRecord], dag: list[str], caps: list[str] | None = None) -> TheoryState:
    return TheoryState(
        informal_statement="t",
        lemma_dag={lid: LemmaNode(id=lid, statement=lid) for lid in dag},
        proven_lemmas={r.lemma_id: r for r in records},
        level_cap_reasons=caps or [],
    )


def test_theorem_gaps_name_what_is_missing_weak_or_capped() -> None:
    s = state([record("A", "smt")], ["A", "B"])
    assert theorem_gaps(s, {"A", "B"}) == "not every lemma was proven: B (blocked)"
    s = state([record("A", "smt"), record("B", "unverified")], ["A", "B"])
    assert theorem_gaps(s, {"A", "B"}) == "lemmas below level 'cited': B"
    s = state([record("A", "smt")], ["A"], caps=["replacement lemma has no claim"])
    assert "capped at unverified: replacement lemma has no claim" in (theorem_gaps(s, {"A"}) or "")
    assert theorem_gaps(state([record("A", "cited")], ["A"]), {"A"}) is None
    # a lemma outside the proof (pruned) is not judged
    assert theorem_gaps(state([record("A", "smt"), record("B", "unverified")], ["A", "B"]), {"A"}) is None


def test_theorem_word_is_self_reviewed_when_a_self_review_is_the_only_support() -> None:
    s = state([record("A", "smt"), record("B", "reviewed", self_review=True)], ["A", "B"])
    verdict = theorem_verdict(s, {"A", "B"})
    assert (verdict.status, verdict.weakest, verdict.self_reviewed) == ("self_reviewed", "reviewed", ["B"])
    # a self-review next to a mechanical proof is not the only support: proved
    s = state([record("A", "smt", self_review=True), record("B", "reviewed")], ["A", "B"])
    verdict = theorem_verdict(s, {"A", "B"})
    assert (verdict.status, verdict.self_reviewed) == ("proved", [])
    assert "weakest level: reviewed" in verdict.reason
