"""A Coq proof from the Prover lifts a lemma to level "formal"; one that does not compile is a
failed attempt whose compiler message goes to the Refiner. Needs coqc (skips without it, fails
under EUREKACLAW_REQUIRE_TOOLS=1)."""

from __future__ import annotations

from theory_script import Script, claim, lemma, make_ctx, put_state
from toolreq import require_tool

from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.types.tasks import InputSpec

GOOD_COQ = """Require Import Reals Psatz.
Open Scope R_scope.
Theorem L1_claim : forall x : R, x * x + 1 >= 2 * x.
Proof. intros x. assert (H : 0 <= (x - 1) * (x - 1)) by apply Rle_0_sqr. lra. Qed.
"""
BAD_COQ = GOOD_COQ.replace("assert (H : 0 <= (x - 1) * (x - 1)) by apply Rle_0_sqr. ", "")


def with_coq(source):
    return {"proof": "Since (x-1)^2 >= 0, x^2 + 1 >= 2x.", "self_assessment": {"confidence": 0.9},
            "formal_proof": source, "formal_theorem": "L1_claim"}


async def test_coq_proof_gives_formal_level_and_bad_one_goes_to_refiner(tmp_path):
    require_tool("coqc")
    script = Script().on("prover", "L1", with_coq(BAD_COQ))
    script.on("refiner", "L1", with_coq(GOOD_COQ))
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1", claim=claim("x**2 + 1 >= 2*x", "x")), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    state = ctx.bus.get_theory_state()
    assert state.status == "proved"
    assert "Coq checker is available" in script.calls("prover", "L1")[0].prompt_text()
    (failure,) = state.failed_attempts
    assert failure.error_category == "formal_check" and "coq" in failure.verifier_text
    assert "coq" in script.calls("refiner", "L1")[0].prompt_text()
    rec = state.proven_lemmas["L1"]
    assert rec.verification_level == "formal" and rec.formal_proof == GOOD_COQ
    assert any(c.checker == "coq" and c.verdict == "passed" for c in rec.checks)
    assert "Theorem L1_claim" in script.calls("verifier", "L1")[-1].prompt_text()
