"""Scenarios (a)-(d), (h), (i) of the theory engine, each asserting the final TheoryState."""

from __future__ import annotations

from theory_script import Script, fail, lemma, make_ctx, proof, put_state

from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.skills.injector import SkillInjector
from eurekaclaw.skills.registry import SkillRegistry
from eurekaclaw.types.artifacts import level_rank
from eurekaclaw.types.skills import SkillMeta, SkillRecord
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="the conjecture")


def five_lemma_plan() -> dict:
    lem = lambda lid, deps, root=False: {  # noqa: E731
        "id": lid,
        "statement": f"Statement {lid}",
        "informal": f"{lid} informally",
        "provenance": "new",
        "dependencies": deps,
        "is_root": root,
    }
    return {
        "formal_statement": "\\forall x: P(x)",
        "assumptions": ["x > 0"],
        "proof_plan": [{"id": "p1", "description": "combine", "provenance": "adapted", "lemma_ids": ["A", "B"]}],
        "lemmas": [
            lem("A", []),
            lem("B", []),
            lem("C", ["A"]),
            lem("D", ["B", "C"]),
            lem("T", ["D", "A"], True),
        ],
    }


class FakeInjector(SkillInjector):
    """A real injector whose choice is fixed: one induction skill, for the prover only."""

    def __init__(self, home) -> None:
        super().__init__(SkillRegistry(home / "skills"), HashingEmbedder())
        self.asked: list[tuple[str, str]] = []

    def top_k(self, task, role, k=5, strategy="hybrid", token_budget=1500):
        self.asked.append((task, role))
        if role != "prover":
            return []
        meta = SkillMeta(name="induction-skill", agent_roles=["prover"], description="use induction")
        return [SkillRecord(meta=meta, body="Try induction on n.")]


async def test_a_five_lemmas_all_proved_first_try(tmp_path):
    script = Script().on("formalizer", None, five_lemma_plan())
    ctx, backend, events = make_ctx(tmp_path, script)
    injector = FakeInjector(tmp_path)
    ctx.services.skill_injector = injector
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "completed"
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert out.status == "completed"
    assert state.status == "self_reviewed"
    assert set(state.proven_lemmas) == {"A", "B", "C", "D", "T"}
    assert all(r.verification_level == "reviewed" and r.attempts == 1 for r in state.proven_lemmas.values())
    assert state.failed_attempts == [] and state.open_goals == []
    assert state.consistency_check.verdict == "passed"
    # assembled in topological order, lemmas referenced by label, main theorem last
    text = state.assembled_proof
    positions = {lid: text.index(f"\\label{{lem:{lid}}}") for lid in "ABCDT"}
    assert positions["A"] < positions["C"] < positions["D"] < positions["T"]
    assert positions["B"] < positions["D"]
    # each lemma proved once, the main theorem last
    provers = [lid for role, lid, _ in script.log if role == "prover"]
    assert sorted(provers) == list("ABCDT") and provers[-1] == "T"
    # per-lemma token use in the ledger; skills recorded for the Learn stage and injected
    assert set(ctx.llm.ledger.by_lemma) == set("ABCDT")
    assert ctx.bus.get("injected_skills") == {lid: ["induction-skill"] for lid in "ABCDT"}
    assert all("Try induction on n." in r.system_dynamic for r in script.calls("prover"))
    assert {t["lemma_id"] for t in ctx.bus.get("tool_traces") if t["success"]} == set("ABCDT")
    proved_events = {d["lemma_id"] for k, d in events if k == "lemma" and d["state"] == "proved"}
    assert proved_events == set("ABCDT")
    # persisted: the file on disk says the same
    on_disk = ctx.bus.load("s1", ctx.session.path).get_theory_state()
    assert on_disk.status == "self_reviewed" and set(on_disk.proven_lemmas) == set("ABCDT")


async def test_b_fails_twice_with_different_errors_then_passes(tmp_path):
    secret = "SELF-ASSESSMENT-MARKER"
    script = Script()
    script.on("prover", "L1", proof("First try: expand and compare terms.", weakest=secret))
    script.on(
        "refiner",
        "L1",
        proof("Second try: bound each term separately."),
        proof("Third try: complete the square, then use positivity."),
    )
    script.on(
        "verifier",
        "L1",
        fail("gap", "step 2 missing"),
        fail("invalid_step", "wrong sign"),
        {"verdict": "pass", "confidence": 0.85, "errors": []},
    )
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    rec = state.proven_lemmas["L1"]
    assert (
        rec.attempts == 3
        and rec.proof == "Third try: complete the square, then use positivity."
        and rec.review_confidence == 0.85
    )
    failures = [f for f in state.failed_attempts if f.lemma_id == "L1"]
    assert [f.error_category for f in failures] == ["gap", "invalid_step"]
    assert [f.proof for f in failures] == [
        "First try: expand and compare terms.",
        "Second try: bound each term separately.",
    ]
    assert "wrong sign" in failures[1].verifier_text
    # targeted repairs only (no broad repair for two different errors)
    assert [o for r, lid, o in script.log if r == "refiner"] == ["ProofAttempt", "ProofAttempt"]
    # the refiner saw the error it had to fix
    assert "step 2 missing" in script.calls("refiner", "L1")[0].prompt_text()
    # the verifier saw the whole proof, never the prover's self-assessment
    reviews = script.calls("verifier", "L1")
    assert "First try: expand and compare terms." in reviews[0].prompt_text()
    assert all(secret not in r.prompt_text() + r.system_text() for r in reviews)
    assert all(len(r.messages) == 1 for r in reviews)  # fresh context


async def test_c_stagnation_triggers_broad_repair_and_split(tmp_path):
    split = {
        "strategy": "split",
        "rationale": "two halves",
        "sub_lemmas": [
            {"id": "L1a", "statement": "First half", "dependencies": []},
            {"id": "L1b", "statement": "Second half", "dependencies": ["L1a"]},
        ],
    }
    script = Script()
    l1_reviews = iter([fail("gap"), fail("gap"), fail("gap")])
    script.on("verifier", "L1", lambda r: next(l1_reviews, {"verdict": "pass", "confidence": 0.9}))
    script.on(
        "refiner",
        "L1",
        lambda r: (
            split if r.output_name() == "BroadRepair" else proof("Patched: the missing case n = 0 is checked directly.")
        ),
    )
    ctx, _, events = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    dag = state.lemma_dag
    assert dag["L1a"].parent == "L1" and dag["L1b"].parent == "L1"
    assert {"L1a", "L1b"} <= set(dag["L1"].dependencies)
    assert set(state.proven_lemmas) == {"L1", "L1a", "L1b", "T"}
    assert [f.error_category for f in state.failed_attempts if f.lemma_id == "L1"] == ["gap"] * 3
    # broad repair asked exactly once, after the third failure of the same category
    refiner_outputs = [o for r, lid, o in script.log if r == "refiner" and lid == "L1"]
    assert refiner_outputs == ["ProofAttempt", "ProofAttempt", "BroadRepair"]
    # the sub-lemmas were proven before L1's final proof, which saw them as dependencies
    order = [lid for k, d in events if k == "lemma" and d["state"] == "proved" for lid in [d["lemma_id"]]]
    assert order.index("L1a") < order.index("L1b") < order.index("L1") < order.index("T")
    final_prover = script.calls("prover", "L1")[-1].prompt_text()
    assert "First half" in final_prover and "Second half" in final_prover
    assert any("split into L1a, L1b" in n for n in state.notes)


async def test_d_verifier_rejects_everything_abandoned(tmp_path):
    script = Script().on("verifier", "L1", fail("gap"))
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=4)
    put_state(ctx, lemma("L1"), lemma("L2"), lemma("T", "L1", "L2", root=True))
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert out.status == "partial"
    assert state.status == "abandoned"
    assert "L1" not in state.proven_lemmas and state.lemma_dag["L1"].status == "failed"
    assert "T" not in state.proven_lemmas  # blocked, never attempted
    assert script.calls("prover", "T") == []
    assert len([f for f in state.failed_attempts if f.lemma_id == "L1"]) == 4
    failed_proofs = {(f.lemma_id, f.proof) for f in state.failed_attempts}
    for lid, rec in state.proven_lemmas.items():
        assert (lid, rec.proof) not in failed_proofs
        assert any(c.checker == "llm_review" and c.verdict == "passed" for c in rec.checks)
    assert "L1" in state.status_reason and state.assembled_proof is None


async def test_d_review_pass_with_major_error_or_low_confidence_is_not_a_pass(tmp_path):
    sneaky = {
        "verdict": "pass",
        "confidence": 0.9,
        "errors": [{"category": "circular", "description": "uses the claim", "severity": "major"}],
    }
    unsure = {"verdict": "pass", "confidence": 0.2, "errors": []}
    script = Script().on("verifier", "L1", sneaky, unsure, "not json at all", "still not json")
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=3)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "abandoned" and "L1" not in state.proven_lemmas
    cats = [f.error_category for f in state.failed_attempts]
    assert cats == ["circular", "other", "unparseable"]


async def test_unparseable_prover_reply_is_a_failed_attempt(tmp_path):
    script = Script().on("prover", "L1", "garbage", "garbage", proof("A good proof: complete the square and conclude."))
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    assert [f.error_category for f in state.failed_attempts] == ["unparseable"]
    assert (
        state.proven_lemmas["L1"].proof == "A good proof: complete the square and conclude."
        and state.proven_lemmas["L1"].attempts == 2
    )


async def test_h_consistency_garbage_is_not_proved(tmp_path):
    script = Script().on("consistency_checker", None, "I think it is fine!")
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert set(state.proven_lemmas) == {"L1", "T"}
    assert state.assembled_proof and "\\label{lem:L1}" in state.assembled_proof
    assert state.consistency_check.verdict == "error"
    assert state.status == "abandoned" and out.status == "partial"
    assert "consistency" in state.status_reason


async def test_h_consistency_inconsistent_or_unknown_label_is_not_proved(tmp_path):
    bad = {
        "proves_statement": False,
        "assumptions_respected": True,
        "cited_lemmas_used_correctly": True,
        "verdict": "consistent",
        "issues": [],
    }
    script = Script().on("consistency_checker", None, bad)
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    assert ctx.bus.get_theory_state().status == "abandoned"

    script2 = Script().on("prover", "T", proof("By Lemma~\\ref{lem:GHOST} we are done."))
    ctx2, _, _ = make_ctx(tmp_path / "two", script2)
    put_state(ctx2, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx2, SPEC)
    state = ctx2.bus.get_theory_state()
    assert state.status == "abandoned" and "GHOST" in state.consistency_check.detail
    assert script2.calls("consistency_checker") == []  # failed by machine before any model


async def test_i_concurrency_bounded_by_setting(tmp_path):
    script = Script(delay_s=0.02)
    ctx, backend, _ = make_ctx(tmp_path, script, theory_concurrency=4)
    leaves = [lemma(f"L{i}") for i in range(8)]
    put_state(ctx, *leaves, lemma("T", *[n.id for n in leaves], root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed" and len(state.proven_lemmas) == 9
    assert backend.max_in_flight == 4
    provers = [lid for role, lid, _ in script.log if role == "prover"]
    assert provers[-1] == "T"


async def test_cited_only_when_citation_verified(tmp_path):
    from eurekaclaw.types.artifacts import Bibliography, Paper

    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    ctx.bus.put_bibliography(
        Bibliography(
            papers=[
                Paper(paper_id="arxiv:1234.56789", title="Good paper", arxiv_id="1234.56789", verification="verified"),
                Paper(paper_id="doi:10.1/fake", title="Unchecked", doi="10.1/fake", verification="suspicious"),
            ]
        )
    )
    put_state(
        ctx,
        lemma("K1", provenance="known", citation="arXiv:1234.56789v2"),
        lemma("K2", provenance="known", citation="doi:10.1/fake"),
        lemma("T", "K1", "K2", root=True),
    )
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    assert state.proven_lemmas["K1"].verification_level == "cited"
    assert any(c.checker == "citation" and c.verdict == "passed" for c in state.proven_lemmas["K1"].checks)
    assert script.calls("prover", "K1") == []
    assert state.proven_lemmas["K2"].verification_level == "reviewed"  # proved like a new one
    assert len(script.calls("prover", "K2")) == 1
    assert "weakest level: cited" in state.status_reason
    assert all(level_rank(r.verification_level) >= level_rank("cited") for r in state.proven_lemmas.values())


async def test_a_review_by_a_model_too_weak_to_count_leaves_lemmas_unverified(tmp_path):
    script = Script().on("formalizer", None, five_lemma_plan())
    ctx, backend, _ = make_ctx(tmp_path, script)
    # the backend reports (as the local backend does for a tiny model) that its review is no evidence
    backend.review_counts_as_evidence = lambda: False
    await FormalizeStage().run(ctx, SPEC)
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert {r.verification_level for r in state.proven_lemmas.values()} == {"unverified"}
    assert state.status == "abandoned" and "below level 'cited'" in state.status_reason
    assert out.status == "partial"
    assert any("too weak to count as evidence" in n for n in state.notes)


async def test_fail_fast_starts_no_lemma_after_one_fails_for_good(tmp_path):
    script = Script().on("verifier", "A", fail("gap"))
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=1, theory_concurrency=1, theory_fail_fast=True)
    # A goes first (longest chain above it); B, C are independent and would be tried without fail-fast
    put_state(ctx, lemma("A"), lemma("A2", "A"), lemma("B"), lemma("C"), lemma("T", "A2", "B", "C", root=True))
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert out.status == "partial" and state.status == "abandoned"
    assert [lid for role, lid, _ in script.log if role == "prover"] == ["A"]
    assert state.proven_lemmas == {}
    assert any("THEORY_FAIL_FAST" in n for n in state.notes)

    # without it the independent lemmas are still proved, for a richer partial result
    script2 = Script().on("verifier", "A", fail("gap"))
    ctx2, _, _ = make_ctx(tmp_path / "b", script2, theory_max_iterations=1, theory_concurrency=1)
    put_state(ctx2, lemma("A"), lemma("A2", "A"), lemma("B"), lemma("C"), lemma("T", "A2", "B", "C", root=True))
    await TheoryStage().run(ctx2, SPEC)
    assert set(ctx2.bus.get_theory_state().proven_lemmas) == {"B", "C"}
