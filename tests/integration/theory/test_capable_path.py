"""The capable path through the theory loop (issue 27 items 1, 3, 5, 6; issue 28 item 1): an
honest, capable model's natural answers succeed, and nothing honest is thrown away.

- a whole-file Coq answer that coqc rejects is fed back once, then dropped with a note: the
  lemma keeps the level Z3 and the review give it, with at most two formal checks;
- a helper the theorem's proof does not use is pruned, and the theorem is proved without it;
- a circular proof fails;
- a garbled plan (ids ',' ';' used twice) is repaired by code and its lemmas are attempted;
- calls and tokens per proved / failed lemma and the repair rounds are recorded.

Real Formalize and Theory stages, a scripted model, real Z3 (and coqc where named)."""

from __future__ import annotations

import json
from typing import Any

from toolreq import require_tool
from unit.theory.theory_script import Script, claim, lemma, make_ctx, proof, put_state

from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.theory.costs import COSTS_FILE, costs_line
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.types.artifacts import CheckResult
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="For all real x, x^2 + 4x + 4 >= 0.")
SQUARE = claim("(x + 2)**2 >= 0", "x")
EXPANDED = claim("x**2 + 4*x + 4 >= 0", "x")
# What a capable model sends as `formal_proof`: a whole file, restating the theorem. This one's
# proof is wrong (`exact I` does not prove an inequality), however the file is taken apart.
WHOLE_FILE = (
    "Require Import Reals Psatz.\nOpen Scope R_scope.\n"
    "Theorem square_nonneg : forall x : R, (x + 2) ^ 2 >= 0.\nProof.\n  intros x. exact I.\nQed."
)
WHOLE_FILE_AGAIN = WHOLE_FILE.replace("exact I", "reflexivity")


def independent_reviewer(ctx: Any, script: Script) -> None:
    """A second scripted model reviews, so a passed review is independent (status `proved`)."""
    ctx.review_llm = SessionLLM(ScriptedBackend(responder=script, model="reviewer"), ctx.llm.ledger, retry_base_s=0.0)


def two_lemmas(ctx: Any) -> None:
    put_state(
        ctx,
        lemma("L1", claim=SQUARE, statement_source="claim"),
        lemma("T", "L1", root=True, claim=EXPANDED, statement_source="claim"),
    )


async def test_a_rejected_whole_file_coq_answer_is_fed_back_once_then_dropped(tmp_path, monkeypatch):
    require_tool("coqc")
    from eurekaclaw.verify import coq

    formal_checks: list[CheckResult] = []
    real = coq.coq_check_claim

    def counted(*args: Any, **kwargs: Any) -> CheckResult:
        formal_checks.append(real(*args, **kwargs))
        return formal_checks[-1]

    monkeypatch.setattr(coq, "coq_check_claim", counted)
    script = Script().on(
        "prover",
        "L1",
        {**proof("A square of a real number is nonnegative; here the number is x + 2."), "formal_proof": WHOLE_FILE},
    )
    script.on("refiner", "L1", {"formal_proof": WHOLE_FILE_AGAIN})
    script.on("prover", "T", proof("x^2 + 4x + 4 = (x + 2)^2, which is nonnegative by Lemma~\\ref{lem:L1}."))
    ctx, _, _ = make_ctx(tmp_path, script)
    independent_reviewer(ctx, script)
    two_lemmas(ctx)
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "proved", state.status_reason
    rec = state.proven_lemmas["L1"]
    assert rec.verification_level == "smt"  # Z3 proved the claim; the Coq text says nothing against it
    assert "formal proof dropped" in rec.level_note and rec.formal_proof is None
    assert not any(c.checker == "coq" for c in rec.checks)
    assert not [f for f in state.failed_attempts if f.lemma_id == "L1"]  # never a failed attempt
    assert len(formal_checks) == 2 and all(c.verdict == "failed" for c in formal_checks)
    (repair,) = script.calls("refiner", "L1")  # fed back once, with the message and the statement
    assert repair.output_name() == "FormalRepair"
    assert "coqc's message" in repair.prompt_text() and "(x + 2) ^ 2" in repair.prompt_text()
    assert len(script.calls("prover", "L1")) == 1
    costs = json.loads((ctx.session.path / COSTS_FILE).read_text())
    assert costs["repairs"]["formal"] == 1 and costs["repairs"]["review"] == 0
    assert costs["proved"]["lemmas"] == 2 and costs["failed"]["lemmas"] == 0
    assert costs["per_lemma"]["L1"]["calls"] >= 3  # prover, reviewer, formal repair
    assert "repair rounds: formal 1" in costs_line(costs)


async def test_a_rejected_formal_proof_with_a_failed_review_is_said_once_and_then_closed(tmp_path, monkeypatch):
    """Without coqc: a checker that rejects every formal proof. The review fails the first
    proof; the rejection rides along in the failure, the second formal proof is the last one
    checked, and later proofs are neither asked for one nor checked."""
    from eurekaclaw.agents.theory import formal_attempt
    from eurekaclaw.verify import coq

    calls: list[str] = []

    def reject(claim: Any, script: str, **_: Any) -> CheckResult:
        calls.append(script)
        return CheckResult(checker="coq", verdict="failed", detail="Error: The reference foo was not found")

    monkeypatch.setattr(coq, "coq_check_claim", reject)
    monkeypatch.setattr("eurekaclaw.agents.theory.prover.coq_available", lambda: True)
    with_formal = {**proof("A square is nonnegative: (x+2)^2 >= 0 for every real x."), "formal_proof": "nra."}
    fail = {
        "verdict": "fail",
        "confidence": 0.8,
        "errors": [{"category": "gap", "description": "say why", "severity": "major"}],
    }
    pass_ = {"verdict": "pass", "confidence": 0.9, "errors": [], "summary": "ok"}
    script = Script().on("prover", "L1", with_formal).on("refiner", "L1", with_formal)
    script.on("verifier", "L1", fail, fail, pass_)
    ctx, _, _ = make_ctx(tmp_path, script)
    two_lemmas(ctx)
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    rec = state.proven_lemmas["L1"]
    assert rec.verification_level == "smt" and "formal proof dropped" in rec.level_note
    assert len(calls) == formal_attempt.MAX_FORMAL_CHECKS
    failures = [f for f in state.failed_attempts if f.lemma_id == "L1"]
    assert [f.error_category for f in failures] == ["gap", "gap"]  # the review's, never formal_check
    assert "optional Coq proof was rejected" in failures[0].verifier_text
    last_repair = [c for c in script.calls("refiner", "L1") if c.output_name() == "ProofAttempt"][-1]
    assert "<coq_statement>" not in last_repair.prompt_text()  # no longer asked for


async def test_an_unused_helper_does_not_sink_an_honest_theorem(tmp_path):
    script = Script().on(
        "prover", "T", proof("Complete the square: x^2 + 4x + 4 = (x + 2)^2, and a real square is nonnegative.")
    )
    ctx, _, _ = make_ctx(tmp_path, script)
    independent_reviewer(ctx, script)
    two_lemmas(ctx)
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "proved", state.status_reason
    assert "all 1 lemmas proven" in state.status_reason
    assert "not used by the proof" in state.proven_lemmas["L1"].level_note
    assert any("not used by the proof: L1" in n for n in state.notes)
    assert len(script.calls("prover", "T")) == 1  # no repair round on a citation
    costs = ctx.bus.get("proof_costs")
    assert costs["per_lemma"]["L1"]["outcome"] == "unused" and costs["proved"]["lemmas"] == 1


async def test_a_circular_proof_fails(tmp_path):
    circular = proof("The proof is based on the main theorem, which gives (x+2)^2 >= 0 directly.")
    script = Script().on("prover", "L1", circular).on("refiner", "L1", circular)
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=2)
    independent_reviewer(ctx, script)
    two_lemmas(ctx)
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert "L1" not in state.proven_lemmas and state.lemma_dag["L1"].status == "failed"
    assert state.status == "abandoned"
    failures = [f for f in state.failed_attempts if f.lemma_id == "L1"]
    assert failures and all(f.error_category == "circular" for f in failures)
    assert not script.calls("verifier", "L1")  # never reviewed, never proved
    costs = ctx.bus.get("proof_costs")
    assert costs["failed"]["lemmas"] == 1 and costs["failed"]["calls"] >= 2


GARBLED_PLAN = {
    "formal_statement": "For a K-armed Bernoulli bandit, UCB1 has expected regret O(sum_i log(T)/Delta_i).",
    "assumptions": ["rewards in [0, 1]"],
    "lemmas": [
        {"id": ",", "statement": "Hoeffding's inequality bounds each arm's mean estimate.", "dependencies": []},
        {"id": ",", "statement": "A suboptimal arm is pulled O(log T / Delta_i^2) times.", "dependencies": [","]},
        {"id": ";", "statement": "The regret decomposes over arms.", "dependencies": [";", "lemma 9"]},
        {
            "id": "main theorem",
            "statement": "UCB1 has expected regret O(sum_i log(T)/Delta_i).",
            "dependencies": [",", ";"],
            "is_root": True,
        },
    ],
}


async def test_a_garbled_plan_is_repaired_by_code_and_its_lemmas_attempted(tmp_path):
    script = Script().on("formalizer", None, GARBLED_PLAN)
    ctx, _, _ = make_ctx(tmp_path, script)
    spec = InputSpec(mode="prove", statement=GARBLED_PLAN["formal_statement"])
    out = await FormalizeStage().run(ctx, spec)
    assert out.status == "completed", out.reason
    plans = [c for c in script.calls("formalizer") if c.output_name() == "FormalPlan"]
    assert len(plans) == 1  # no model repair round was needed
    state = ctx.bus.get_theory_state()
    assert set(state.lemma_dag) == {"L1", "L2", "L3", "L4"}
    assert state.lemma_dag["L2"].dependencies == ["L1"]  # ',' meant the ',' before it
    assert state.lemma_dag["L3"].dependencies == []  # itself and "lemma 9" dropped
    assert state.lemma_dag["L4"].is_root and state.lemma_dag["L4"].dependencies == ["L2", "L3"]
    notes = " ".join(state.notes)
    assert "renamed to L1..L4" in notes and "'lemma 9'" in notes and "on itself dropped" in notes
    await TheoryStage().run(ctx, spec)
    assert {r.lemma_id for r in script.calls("prover")} >= {"L2", "L3", "L4"}
