"""The level-claim check: a sentence may not claim more than the records say."""

from __future__ import annotations

from pathlib import Path

import pytest

from eurekaclaw.agents.writer.bibtex import plan_citations
from eurekaclaw.agents.writer.doc import PaperDoc, build_doc
from eurekaclaw.review.claims import ALL, THEOREM, ClaimChecker
from eurekaclaw.types.artifacts import TheoryState

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "writer"


def doc(*, self_review: bool = False, proved: bool = True, ids: dict[str, str] | None = None) -> PaperDoc:
    """The writer fixture: L1 cited, L2 reviewed, L3 smt, main (root) proved."""
    state = TheoryState.model_validate_json((FIXTURES / "theory_proved.json").read_text())
    state.proven_lemmas["L2"].self_review = self_review
    if not proved:
        state.status = "in_progress"
        del state.proven_lemmas["L2"], state.proven_lemmas["main"]
        state.lemma_dag["L2"].status = "failed"
    for old, new in (ids or {}).items():
        node = state.lemma_dag.pop(old)
        node.id = new
        state.lemma_dag[new] = node
        record = state.proven_lemmas.pop(old)
        record.lemma_id = new
        state.proven_lemmas[new] = record
    return build_doc(state, plan_citations(None), None, {})


def claims(text: str, **kwargs) -> list[tuple[str, str]]:
    return [(c.subject, c.claimed) for c in ClaimChecker(doc(**kwargs)).check(text)[1]]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Lemma L2 was formally verified in Coq.", [("L2", "formal")]),
        ("Lemma~\\ref{lem:L2} is machine-checked.", [("L2", "smt")]),
        ("Lemma L2 was certified by the proof kernel.", [("L2", "formal")]),
        ("Lemma L3 was type-checked.", [("L3", "formal")]),
        ("Lemma L2 was mechanically verified.", [("L2", "smt")]),
        ("Lemma L2 was proved by Z3.", [("L2", "smt")]),
        ("L2 was proved with an SMT solver.", [("L2", "smt")]),
        ("The main theorem was formally verified.", [(THEOREM, "formal")]),
        ("All lemmas were formally verified.", [(ALL, "formal")]),
        ("Lemma L1 was reviewed by a model.", [("L1", "reviewed")]),
        ("Everything was formally verified.", [(ALL, "formal")]),
        ("The whole argument is machine-checked.", [(ALL, "smt")]),
    ],
)
def test_overclaims_are_found_with_their_subject(text: str, expected: list[tuple[str, str]]) -> None:
    assert claims(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Lemma L2 was reviewed, not formally verified.",
        "Lemma L2 has no formal proof; it was reviewed.",
        "Lemma L3 was proved by Z3.",
        "Lemma L3 is machine-checked: Z3 proved its claim.",
        "Lemma L3 was proved by Z3 and Lemma L2 was reviewed.",
        "Lemma L1 is a cited result, so it is verified through its citation.",
        "The main theorem is proved; its weakest level is cited.",
        "An SMT solver like Z3 decides such claims automatically.",
        "Lemma L2 was checked by review rather than by Z3.",
        "It is unclear whether Lemma L2 could be formally verified.",
    ],
)
def test_accurate_or_negated_sentences_pass(text: str) -> None:
    assert claims(text) == []


def test_a_pronoun_carries_the_subject_of_the_previous_sentence() -> None:
    assert claims("Lemma L2 is the key step. It was verified by an SMT solver.") == [("L2", "smt")]
    # without a pronoun nothing is carried over
    assert claims("Lemma L2 is the key step. Solvers such as Z3 are fast.") == []


def test_independent_review_of_a_self_review_is_an_overclaim() -> None:
    text = "Lemma L2 was independently reviewed."
    assert claims(text, self_review=True) == [("L2", "independent review")]
    assert claims(text, self_review=False) == []


def test_an_open_lemma_and_an_unproved_theorem_cannot_be_proved() -> None:
    assert claims("Lemma L2 is established.", proved=False) == [("L2", "proved")]
    assert claims("We proved the main theorem.", proved=False) == [(THEOREM, "proved")]
    assert claims("Lemma L2 is not proved.", proved=False) == []


def test_offending_sentences_are_dropped_and_the_rest_kept() -> None:
    checker = ClaimChecker(doc())
    text = "Lemma L2 bounds the pulls. Lemma L2 was formally verified. Lemma L3 was proved by Z3.\n\nSecond paragraph."
    kept, found = checker.check(text)
    assert kept == "Lemma L2 bounds the pulls. Lemma L3 was proved by Z3.\n\nSecond paragraph."
    assert found[0].recorded == "Lemma L2 is recorded at level reviewed"
    assert checker.check("No claims here.\n\\begin{itemize}\n\\item x\n\\end{itemize}")[0] == (
        "No claims here.\n\\begin{itemize}\n\\item x\n\\end{itemize}"
    )


def test_a_word_id_is_recognised_as_the_x_lemma() -> None:
    d = doc(ids={"L2": "gap"})
    found = ClaimChecker(d).check("The gap lemma was formally verified.")[1]
    assert [(c.subject, c.claimed) for c in found] == [("gap", "formal")]
    assert ClaimChecker(d).check("The gap between arms was formally defined.")[1] == []


def test_ids_with_underscores_and_dots_are_recognised() -> None:
    d = doc(ids={"L2": "pull_event.v2"})
    found = ClaimChecker(d).check("Lemma~\\ref{lem:pull_event.v2} was formally verified.")[1]
    assert [(c.subject, c.claimed) for c in found] == [("pull_event.v2", "formal")]
