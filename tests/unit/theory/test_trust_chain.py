"""The trust chain inside the theory engine: a level says exactly what a machine checked.

Each test drives the real Formalize/Theory code with a scripted model that behaves carelessly
in one specific way, and asserts what the TheoryState records."""

from __future__ import annotations

from theory_script import CONSISTENT, Script, claim, lemma, make_ctx, proof, put_state

from eurekaclaw.agents.formalize.models import LemmaOut
from eurekaclaw.agents.formalize.surgery import merge_replan
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.llm.ledger import UsageLedger
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.types.artifacts import Claim, ClaimVariable, Counterexample, LemmaNode
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="the conjecture")
TRIVIAL_COQ = "Theorem conc : 1 + 1 = 2.\nProof. reflexivity. Qed."
AM_GM = Claim(
    variables=[ClaimVariable(name="a", domain="nonnegative"), ClaimVariable(name="b", domain="nonnegative")],
    conclusion="(a + b)/2 >= sqrt(a*b)",
)


def with_coq(text: str) -> dict:
    return {**proof(text), "formal_proof": TRIVIAL_COQ}


async def run_theory(ctx) -> None:
    await TheoryStage().run(ctx, SPEC)


async def test_a_formal_proof_of_a_lemma_without_claim_is_ignored(tmp_path):
    script = Script().on("prover", "A", with_coq("Obvious: expand the square and compare the terms."))
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A"), lemma("T", "A", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    rec = state.proven_lemmas["A"]
    assert rec.verification_level == "reviewed"
    assert rec.formal_proof is None
    assert not any(c.checker == "coq" and c.verdict == "passed" for c in rec.checks)
    assert any("no claim" in n and "ignored" in n for n in state.notes)


async def test_a_claim_checked_by_smt_is_only_supporting_when_the_statement_is_prose(tmp_path):
    ctx, _, _ = make_ctx(tmp_path, Script())
    put_state(ctx, lemma("A", claim=AM_GM), lemma("T", "A", root=True))
    await run_theory(ctx)
    rec = ctx.bus.get_theory_state().proven_lemmas["A"]
    assert any(c.checker == "z3" and c.verdict == "passed" for c in rec.checks)
    assert rec.verification_level == "reviewed"
    assert rec.supporting and "claim checked by Z3" in rec.supporting[0]
    assert "says more than its claim" in rec.level_note


async def test_a_lemma_shown_as_its_claim_earns_the_smt_level(tmp_path):
    ctx, _, _ = make_ctx(tmp_path, Script())
    node = lemma("A", claim=AM_GM, statement_source="claim")
    put_state(ctx, node, lemma("T", "A", root=True))
    await run_theory(ctx)
    rec = ctx.bus.get_theory_state().proven_lemmas["A"]
    assert rec.verification_level == "smt" and rec.supporting == []


async def test_a_flagged_claim_earns_no_mechanical_level(tmp_path):
    ctx, _, _ = make_ctx(tmp_path, Script())
    flagged = lemma(
        "A",
        claim=claim("x <= 1", assumptions=["x <= 1"]),
        statement_source="claim",
        claim_flags=["the conclusion repeats assumption 1"],
    )
    put_state(ctx, flagged, lemma("T", "A", root=True))
    await run_theory(ctx)
    rec = ctx.bus.get_theory_state().proven_lemmas["A"]
    assert rec.verification_level == "reviewed"
    assert "too trivial" in rec.level_note


async def test_the_reviews_of_the_proving_model_are_self_reviews(tmp_path):
    ctx, _, _ = make_ctx(tmp_path, Script())
    put_state(ctx, lemma("A"), lemma("T", "A", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    assert all(r.self_review and r.reviewer == "scripted:scripted-main" for r in state.proven_lemmas.values())
    assert "self-review" in state.status_reason


async def test_an_independent_reviewer_is_recorded_as_such(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    reviewer_script = Script()
    reviewer = ScriptedBackend(responder=reviewer_script, model="referee")
    ctx.review_llm = SessionLLM(reviewer, UsageLedger(ctx.session.file("usage2.json")), retry_base_s=0.0)
    put_state(ctx, lemma("A"), lemma("T", "A", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert all(not r.self_review and r.reviewer == "scripted:referee-main" for r in state.proven_lemmas.values())
    # the reviews and the consistency check went to the reviewer, the proofs to the prover
    assert {r.role for r in reviewer_script.requests} == {"verifier", "consistency_checker"}
    assert not script.calls("verifier")
    assert "independent" not in state.status_reason and "self-review" not in state.status_reason


async def test_a_counterexample_found_earlier_refutes_a_later_claim(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    state = put_state(ctx, lemma("A", claim=claim("x^2 <= x + 1")), lemma("T", "A", root=True))
    state.counterexamples.append(
        Counterexample(lemma_id="old", assignment={"x": 3}, checker="falsifier", confirmed=True)
    )
    ctx.bus.put_theory_state(state)
    ctx.settings = ctx.settings.model_copy(update={"theory_max_replans": 0})
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert state.lemma_dag["A"].status == "refuted"
    cx = [c for c in state.counterexamples if c.lemma_id == "A"]
    assert cx and cx[0].checker.startswith("session_counterexample") and cx[0].assignment == {"x": 3}
    assert not script.calls("prover", "A")  # refuted before any proof was asked for
    assert state.status != "proved"


async def test_a_replacement_without_claim_caps_the_theorem(tmp_path):
    false = claim("x^2 <= x", assumptions=[])
    replan = {
        "rationale": "reworded",
        "lemmas": [
            {"id": "B", "statement": "Statement of A, reworded.", "dependencies": [], "claim": None},
            {"id": "T", "statement": "Main theorem.", "dependencies": ["B"], "is_root": True},
        ],
    }
    script = Script().on("formalizer", "A", replan)
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A", claim=false), lemma("T", "A", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert state.lemma_dag["A"].status == "refuted"
    assert state.lemma_dag["B"].replaces == "A"
    assert state.level_cap_reasons and "B" in state.level_cap_reasons[0]
    assert state.status == "abandoned" and "capped" in state.status_reason
    assert state.weakest_level() == "unverified"
    # the replacement's prover and reviewer were shown what was refuted, with its values
    for role in ("prover", "verifier"):
        text = script.calls(role, "B")[0].prompt_text()
        assert "Refuted before" in text or "replaces one that a machine refuted" in text
        assert "Statement of A." in text


def test_a_replan_that_restates_the_refuted_lemma_is_rejected():
    dag = {
        "A": LemmaNode(id="A", statement="For all $x$, $x^2 \\le x$.", status="refuted"),
        "T": LemmaNode(id="T", statement="Main.", dependencies=["A"], is_root=True, status="pending"),
    }
    same = LemmaOut(id="A2", statement="For all $x$,  $x^2 \\le  x$.", dependencies=[])
    root = LemmaOut(id="T", statement="Main.", dependencies=["A2"], is_root=True)
    result = merge_replan(dag, [same, root], {"T"}, "A")
    assert any("restates the refuted lemma 'A'" in p for p in result.problems)


async def test_an_unused_lemma_is_pruned_and_the_theorem_judged_without_it(tmp_path):
    script = Script().on("prover", "T", proof("The main theorem follows by completing the square."))
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A"), lemma("T", "A", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert state.status in ("proved", "self_reviewed")
    assert "never used" not in state.consistency_check.detail
    assert state.lemma_dag["T"].dependencies == []  # pruned from the proof
    assert "not used by the proof" in state.proven_lemmas["A"].level_note  # the record stays
    assert any("not used by the proof: A" in n for n in state.notes)
    assert "lem:A" not in state.assembled_proof
    assert len(script.calls("prover", "T")) == 1  # no repair round spent on it


async def test_a_proof_citing_a_lemma_outside_its_dependencies_fails_consistency(tmp_path):
    script = (
        Script()
        .on("prover", "A", proof("By Lemma~\\ref{lem:B}, done."))
        .on("prover", "T", proof("By Lemma~\\ref{lem:A} and Lemma~\\ref{lem:B}."))
    )
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A"), lemma("B"), lemma("T", "A", "B", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert state.status == "abandoned"
    assert "not among its dependencies" in state.consistency_check.detail
    assert CONSISTENT  # the model would have said consistent; it was never asked
    assert not script.calls("consistency_checker")


async def test_a_resumed_reformalization_after_a_contradiction_is_not_skipped(tmp_path):
    from eurekaclaw.agents.formalize.stage import FormalizeStage

    plan = {
        "formal_statement": "v2",
        "lemmas": [{"id": "T", "statement": "Main v2.", "is_root": True, "dependencies": []}],
    }
    script = Script().on("formalizer", None, plan)
    ctx, _, _ = make_ctx(tmp_path, script)
    state = put_state(ctx, lemma("T", root=True))
    state.informal_statement = SPEC.statement
    state.status = "contradicted"
    state.contradictions = ["bound violated"]
    state.counterexamples.append(
        Counterexample(lemma_id="T", assignment={"T": 1000}, checker="experiment", confirmed=True)
    )
    ctx.bus.put_theory_state(state)
    out = await FormalizeStage().run(ctx, SPEC, resume=True)
    assert out.summary != "already formalized"
    new = ctx.bus.get_theory_state()
    assert new.formal_statement == "v2" and new.status == "pending"
    assert [c.checker for c in new.counterexamples] == ["experiment"]  # what failed stays on record
    prompt = script.calls("formalizer")[0].prompt_text()
    assert "numerical experiment violated" in prompt and "bound violated" in prompt


async def test_a_citation_outside_the_dependencies_goes_back_to_the_prover_once(tmp_path):
    script = Script().on(
        "prover", "A", proof("By Lemma~\\ref{lem:B}, A holds."), proof("A holds: expand both sides and compare.")
    )
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A"), lemma("B"), lemma("T", "A", "B", root=True))
    await run_theory(ctx)
    state = ctx.bus.get_theory_state()
    assert state.status in ("proved", "self_reviewed")
    assert len(script.calls("prover", "A")) == 2
    [failure] = [f for f in state.failed_attempts if f.lemma_id == "A"]
    assert "not among its dependencies" in failure.verifier_text
    # the second proof was asked for with the finding in view
    assert "not among its dependencies" in script.calls("prover", "A")[1].prompt_text()
    costs = ctx.bus.get("proof_costs")
    assert costs["repairs"]["consistency"] == 1
