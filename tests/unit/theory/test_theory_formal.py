"""A Coq proof script from the Prover lifts a lemma to level "formal" — checked against the
statement the project generated from the lemma's claim; one that does not compile goes back
once, with coqc's message and the statement, and is then dropped: it never fails the lemma. Needs coqc (skips without it, fails under
EUREKACLAW_REQUIRE_TOOLS=1)."""

from __future__ import annotations

from theory_script import Script, claim, lemma, make_ctx, put_state
from toolreq import require_tool

from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.types.tasks import InputSpec

GOOD_SCRIPT = "intros x. assert (H : 0 <= (x - 1) * (x - 1)) by apply Rle_0_sqr. nra."
BAD_SCRIPT = "intros x. lra."
# A careless prover's whole file about something else: as a proof script of the generated
# statement it cannot compile, whatever it proves on its own.
UNRELATED = "Theorem conc : 1 + 1 = 2.\nProof. reflexivity. Qed."


def with_coq(script):
    return {
        "proof": "Since (x-1)^2 >= 0, x^2 + 1 >= 2x.",
        "self_assessment": {"confidence": 0.9},
        "formal_proof": script,
    }


async def test_coq_proof_gives_formal_level_and_bad_one_is_repaired_once(tmp_path):
    require_tool("coqc")
    script = Script().on("prover", "L1", with_coq(BAD_SCRIPT))
    script.on("refiner", "L1", with_coq(GOOD_SCRIPT))
    ctx, _, _ = make_ctx(tmp_path, script)
    node = lemma("L1", claim=claim("x**2 + 1 >= 2*x", "x"), statement_source="claim")
    put_state(ctx, node, lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    state = ctx.bus.get_theory_state()
    assert state.status in ("proved", "self_reviewed")  # T is self-reviewed; L1 is formal
    prompt = script.calls("prover", "L1")[0].prompt_text()
    assert "Coq checker is available" in prompt and "x ^ 2 + 1 >= 2 * x" in prompt
    assert not state.failed_attempts  # a rejected formal proof is no failed attempt
    (repair,) = script.calls("refiner", "L1")
    assert repair.output_name() == "FormalRepair"
    assert "coqc's message" in repair.prompt_text() and "x ^ 2 + 1 >= 2 * x" in repair.prompt_text()
    rec = state.proven_lemmas["L1"]
    assert rec.verification_level == "formal" and rec.formal_proof == GOOD_SCRIPT
    coq = [c for c in rec.checks if c.checker == "coq"]
    assert coq and coq[0].verdict == "passed" and "x ^ 2 + 1 >= 2 * x" in coq[0].detail


async def test_an_unrelated_coq_file_never_reaches_formal(tmp_path):
    require_tool("coqc")
    script = Script().on("prover", "L1", with_coq(UNRELATED))
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=1)
    node = lemma("L1", claim=claim("x**2 + 1 >= 2*x", "x"), statement_source="claim")
    put_state(ctx, node, lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    state = ctx.bus.get_theory_state()
    rec = state.proven_lemmas["L1"]  # Z3 proved the claim, the review passed: proved all the same
    assert rec.verification_level == "smt" and rec.formal_proof is None
    assert "formal proof dropped" in rec.level_note
    assert not any(c.checker == "coq" and c.verdict == "failed" for c in rec.checks)
