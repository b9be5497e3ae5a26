"""review text through the one door: a sentence on how anything was checked, or on a proof status,
is refused whatever the records say, and the record of the result it spoke of is shown instead."""

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


def claims(text: str, **kwargs) -> list[str]:
    return [c.subject for c in ClaimChecker(doc(**kwargs)).check(text)[1]]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Lemma L2 was formally verified in Coq.", ["L2"]),
        ("Lemma~\\ref{lem:L2} is machine-checked.", ["L2"]),
        ("Lemma L2 was certified by the proof kernel.", ["L2"]),
        ("Lemma L3 was type-checked.", ["L3"]),
        ("Lemma L3 was proved by Z3.", ["L3"]),  # true, and still the records' to say
        ("L2 was proved with an SMT solver.", ["L2"]),
        ("The main theorem was formally verified.", [THEOREM]),
        ("All lemmas were formally verified.", [ALL]),
        ("Lemma L1 was reviewed by a model.", ["L1"]),
        ("Everything was formally verified.", [ALL]),
        ("Lemma L3 was proved by Z3 and Lemma L2 was reviewed.", ["L3", "L2"]),
        # no named subject: about the main theorem
        ("It was formally verified in Coq.", [THEOREM]),
        ("Formally verified in Coq, without doubt.", [THEOREM]),
    ],
)
def test_sentences_on_checks_are_refused_with_their_subject(text: str, expected: list[str]) -> None:
    assert claims(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Lemma L2 bounds the number of pulls of a suboptimal arm.",
        "The regret grows like the square root of the horizon.",
        "Auer et al. [3] proved a logarithmic bound for UCB1.",
        "We could not prove the lower bound.",
    ],
)
def test_plain_mathematics_passes(text: str) -> None:
    assert claims(text) == []


def test_a_pronoun_carries_the_subject_of_the_previous_sentence() -> None:
    assert claims("Lemma L2 is the key step. It was verified by an SMT solver.") == ["L2"]
    # without a pronoun nothing is carried over: the main theorem is the subject
    assert claims("Lemma L2 is the key step. Solvers such as Z3 are fast.") == [THEOREM]


def test_an_open_lemma_and_an_unproved_theorem_cannot_be_proved() -> None:
    assert claims("Lemma L2 is established.", proved=False) == ["L2"]
    assert claims("We proved the main theorem.", proved=False) == [THEOREM]
    assert claims("We show that the regret is small.", proved=False) == [THEOREM]
    assert claims("Lemma L2 is not proved.", proved=False) == []


def test_offending_sentences_are_dropped_and_the_rest_kept() -> None:
    checker = ClaimChecker(doc())
    text = "Lemma L2 bounds the pulls. Lemma L2 was formally verified. Lemma L3 was proved by Z3.\n\nSecond paragraph."
    kept, found = checker.check(text)
    assert kept == "Lemma L2 bounds the pulls.\n\nSecond paragraph."
    assert found[0].recorded == "Lemma L2 is recorded at level reviewed"
    assert found[1].recorded == "Lemma L3 is recorded at level smt"
    assert checker.check("No claims here.\n\\begin{itemize}\n\\item x\n\\end{itemize}")[0] == (
        "No claims here.\n\\begin{itemize}\n\\item x\n\\end{itemize}"
    )


def test_a_word_id_is_recognised_as_the_x_lemma() -> None:
    d = doc(ids={"L2": "gap"})
    assert [c.subject for c in ClaimChecker(d).check("The gap lemma was formally verified.")[1]] == ["gap"]
    assert ClaimChecker(d).check("The gap between arms was defined above.")[1] == []


def test_ids_with_underscores_and_dots_are_recognised() -> None:
    d = doc(ids={"L2": "pull_event.v2"})
    found = ClaimChecker(d).check("Lemma~\\ref{lem:pull_event.v2} was formally verified.")[1]
    assert [c.subject for c in found] == ["pull_event.v2"]
