"""states_refuted: the texts Learn refuses because they state a claim that was refuted."""

from __future__ import annotations

import pytest

from eurekaclaw.agents.learn.refuted import known_refutations, remember_refutations, states_refuted
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.types.artifacts import Claim, ClaimVariable, Counterexample, TheoryState

TAIL = Claim(variables=[ClaimVariable(name="n", domain="natural", low=2)], conclusion="Sum(1/k^2, (k, 2, n)) <= 0.6")
SQUARE = Claim(variables=[ClaimVariable(name="x")], conclusion="x^2 <= x")


def session() -> TheoryState:
    return TheoryState(
        counterexamples=[
            Counterexample(lemma_id="L1", assignment={"n": 30}, confirmed=True, claim=TAIL, checker="falsifier"),
            Counterexample(lemma_id="L2", assignment={"x": 2}, confirmed=True, claim=SQUARE, checker="falsifier"),
        ]
    )


@pytest.mark.parametrize(
    "text",
    [
        "Handy: Sum(1/k^2, (k, 2, n)) <= 0.6.",
        "A bound: Sum(1/j^2, (j, 2, m)) <= 0.6 for every m.",
        "we have Sum(1/i^2, (i, 2, N)) < 0.6 always",
        "For any real t, t^2 <= t holds",
        "Use y*y ≤ y",
        "$x^2 \\le x$ for all x",
    ],
)
def test_refused(text: str) -> None:
    assert states_refuted(text, known_refutations(session(), None, "mab"))


@pytest.mark.parametrize(
    "text",
    [
        "Compare 1/k^2 with 1/(k-1) - 1/k and telescope.",
        "Sum(1/k^2, (k, 2, n)) <= 1 for every n",
        "x^2 >= 0 for every real x",
        "Pull counts concentrate; use Bernstein's inequality.",
    ],
)
def test_kept(text: str) -> None:
    assert states_refuted(text, known_refutations(session(), None, "mab")) is None


def test_refutations_reach_a_later_session(tmp_path) -> None:
    mm = MemoryManager(tmp_path, "A", HashingEmbedder())
    assert remember_refutations(session(), mm, "mab", "A") == 2
    later = known_refutations(TheoryState(), MemoryManager(tmp_path, "B", HashingEmbedder()), "mab")
    assert states_refuted("Recall m^2 <= m for reals.", later)
