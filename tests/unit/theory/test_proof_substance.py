"""A proof must have substance: a minimum length, and at least one step beyond restating its
claim (issue 15 item 6). A careless model's restatement is a failed attempt, never reviewed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from theory_script import Script, lemma, make_ctx, proof, put_state

from eurekaclaw.agents.theory.models import MIN_PROOF_CHARS, ProofAttempt
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.agents.theory.substance import restates_claim
from eurekaclaw.types.artifacts import LemmaNode
from eurekaclaw.types.tasks import InputSpec

STATEMENT = r"For all real $x$, $x^2 + 1 \ge 2x$."


@pytest.mark.parametrize("text", ["ProofAttempt", "Trivial.", "p", "   " + "x" * 5 + "   "])
def test_a_proof_shorter_than_the_minimum_is_invalid(text):
    with pytest.raises(ValidationError, match=str(MIN_PROOF_CHARS)):
        ProofAttempt(proof=text)


@pytest.mark.parametrize(
    "text",
    [
        r"For all real $x$, $x^2 + 1 \ge 2x$ holds, as claimed.",
        r"Clearly $x^2 + 1 \ge 2x$ for all real $x$. QED",
        "The statement holds by definition, hence the claim follows.",
    ],
)
def test_restating_the_claim_is_no_proof(text):
    assert restates_claim(text, STATEMENT)


@pytest.mark.parametrize(
    "text",
    [
        r"Since $(x-1)^2 \ge 0$, expanding gives $x^2 - 2x + 1 \ge 0$, i.e. the claim.",
        r"By Lemma~\ref{lem:L1} with $y = x - 1$.",
        "By standard results on squares of reals, the claim follows.",  # weak, but a step: the reviewer judges it
    ],
)
def test_a_step_beyond_the_claim_counts(text):
    assert not restates_claim(text, STATEMENT)


async def test_a_restating_proof_is_a_failed_attempt_and_never_reviewed(tmp_path):
    restated = proof(r"For all real $x$, $x^2 + 1 \ge 2x$ holds, as claimed.")
    script = Script().on("prover", "L1", restated).on("refiner", "L1", restated)
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=2)
    put_state(ctx, LemmaNode(id="L1", statement=STATEMENT, informal="squares"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    state = ctx.bus.get_theory_state()
    assert "L1" not in state.proven_lemmas and state.status != "proved"
    failures = [f for f in state.failed_attempts if f.lemma_id == "L1"]
    assert len(failures) == 2 and all(f.error_category == "gap" for f in failures)
    assert all("only restates the claim" in f.verifier_text for f in failures)
    assert script.calls("verifier", "L1") == []  # nothing for a reviewer to pass
