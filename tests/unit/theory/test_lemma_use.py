"""Which lemmas a proof uses: circular citations are found, honest mentions of the main
theorem's setting are not, and pruning keeps what a proof cites below an unused lemma."""

from __future__ import annotations

import pytest
from theory_script import lemma

from eurekaclaw.agents.theory.lemma_use import circular_citations, prune_unused
from eurekaclaw.types.artifacts import ProofRecord, TheoryState

DAG = {n.id: n for n in (lemma("B"), lemma("A", "B"), lemma("T", "A", root=True))}


@pytest.mark.parametrize(
    ("lid", "proof", "found"),
    [
        ("A", "The proof is based on the main theorem.", ["T"]),
        ("A", "By Theorem~\\ref{thm:main}, done.", ["T"]),
        ("B", "By Lemma~\\ref{lem:A}, B holds.", ["A"]),
        ("B", "Lemma~\\ref{lem:B} itself gives it.", ["B"]),
        ("A", "Under the assumptions from the main theorem, expand and use Lemma~\\ref{lem:B}.", []),
        ("A", "This step is what the main theorem will need; by Lemma~\\ref{lem:B} it holds.", []),
        ("T", "By Lemma~\\ref{lem:A}, the main theorem follows.", []),
    ],
)
def test_circular_citations(lid: str, proof: str, found: list[str]) -> None:
    assert circular_citations(DAG, lid, proof) == found


def test_pruning_an_unused_chain_notes_every_lemma_left_out() -> None:
    state = TheoryState(lemma_dag={k: v.model_copy(deep=True) for k, v in DAG.items()})
    for lid, text in (("B", "Expand the square."), ("A", "By Lemma~\\ref{lem:B}."), ("T", "Directly.")):
        state.proven_lemmas[lid] = ProofRecord(lemma_id=lid, proof=text, verification_level="reviewed")
    assert prune_unused(state) == ["A", "B"]
    assert state.lemma_dag["T"].dependencies == []
    assert all(state.proven_lemmas[x].level_note == "not used by the proof" for x in ("A", "B"))


def test_nothing_is_pruned_before_every_lemma_is_proven() -> None:
    state = TheoryState(lemma_dag={k: v.model_copy(deep=True) for k, v in DAG.items()})
    state.proven_lemmas["B"] = ProofRecord(lemma_id="B", proof="x", verification_level="reviewed")
    assert prune_unused(state) == []
