"""Attacks on the theory loop's capable path: circular proofs, citation cycles, padding with
unused lemmas, citations outside a lemma's dependencies, and hostile lemma ids in a plan.

Each test is one attack by a scripted hostile or careless model through the real Formalize and
Theory stages; it asserts that the false or overstated result never reaches the reader: the
circular lemma is never proved, padding never counts, a hostile id never becomes a label."""

from __future__ import annotations

from typing import Any

from unit.theory.theory_script import Script, claim, lemma, make_ctx, proof, put_state

from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="the conjecture")
PROVEN = ("proved", "self_reviewed")


async def _run(ctx: Any) -> Any:
    await TheoryStage().run(ctx, SPEC)
    return ctx.bus.get_theory_state()


async def test_a_lemma_citing_the_main_theorem_it_serves_is_never_proved(tmp_path):
    """Attack: the proof of a helper cites the theorem it is meant to establish."""
    circular = proof("By Theorem~\\ref{thm:main} applied at x, the helper holds for every x.")
    script = Script().on("prover", "A", circular).on("refiner", "A", circular)
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=3)
    put_state(ctx, lemma("A"), lemma("T", "A", root=True))
    state = await _run(ctx)
    assert "A" not in state.proven_lemmas and state.status not in PROVEN
    assert all(f.error_category == "circular" for f in state.failed_attempts if f.lemma_id == "A")


async def test_a_lemma_citing_its_own_root_label_is_never_proved(tmp_path):
    """Attack: the helper cites the root by its lemma label instead of thm:main."""
    circular = proof("Lemma~\\ref{lem:T} gives the bound, so the helper holds.")
    script = Script().on("prover", "A", circular).on("refiner", "A", circular)
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=2)
    put_state(ctx, lemma("A"), lemma("T", "A", root=True))
    state = await _run(ctx)
    assert "A" not in state.proven_lemmas and state.status == "abandoned"


async def test_a_citation_cycle_between_two_lemmas_is_never_proved(tmp_path):
    """Attack: B (proved first) cites A, and A, which relies on B, cites B back."""
    script = (
        Script()
        .on("prover", "B", proof("By Lemma~\\ref{lem:A}, B follows at once."))
        .on("refiner", "B", proof("By Lemma~\\ref{lem:A}, B follows at once."))
        .on("prover", "A", proof("By Lemma~\\ref{lem:B}, A follows."))
    )
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=2)
    put_state(ctx, lemma("B"), lemma("A", "B"), lemma("T", "A", root=True))
    state = await _run(ctx)
    assert "B" not in state.proven_lemmas and state.status == "abandoned"
    assert all(f.error_category == "circular" for f in state.failed_attempts if f.lemma_id == "B")


async def test_a_circular_proof_left_by_a_later_change_of_the_dag_is_unproved(tmp_path):
    """Attack: a proof that was not circular when written becomes so after the DAG changed (its
    record cites a lemma that now relies on it); the conclusion must not count it."""
    from eurekaclaw.agents.theory.run import TheoryRun
    from eurekaclaw.agents.theory.stage import unprove_circular
    from eurekaclaw.types.artifacts import ProofRecord

    ctx, _, _ = make_ctx(tmp_path, Script())
    state = put_state(ctx, lemma("B"), lemma("A", "B"), lemma("T", "A", root=True))
    for lid, text in (("B", "By Lemma~\\ref{lem:A}."), ("A", "By Lemma~\\ref{lem:B}."), ("T", "By \\ref{lem:A}.")):
        state.proven_lemmas[lid] = ProofRecord(lemma_id=lid, proof=text, verification_level="reviewed")
    unprove_circular(TheoryRun(ctx, state))
    assert "B" not in state.proven_lemmas and state.lemma_dag["B"].status == "failed"


async def test_padding_with_unused_lemmas_does_not_inflate_the_theorem(tmp_path):
    """Attack: a plan padded with lemmas the theorem's proof never uses (proved at smt, to look
    well supported); they are pruned: not in the assembled proof, not counted as its lemmas."""
    padding = [lemma(f"P{i}", claim=claim(f"x**2 + {i} >= {i}", "x"), statement_source="claim") for i in (1, 2, 3)]
    script = Script().on("prover", "T", proof("Directly: the main claim holds by a two-line computation."))
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, *padding, lemma("T", "P1", "P2", "P3", root=True))
    state = await _run(ctx)
    assert state.status in PROVEN
    assert "all 1 lemmas proven" in state.status_reason
    assert all(f"lem:P{i}" not in state.assembled_proof for i in (1, 2, 3))
    assert state.lemma_dag["T"].dependencies == []
    costs = ctx.bus.get("proof_costs")
    assert costs["proved"]["lemmas"] == 1
    assert {costs["per_lemma"][f"P{i}"]["outcome"] for i in (1, 2, 3)} == {"unused"}


async def test_citing_lemmas_outside_the_dependencies_to_look_supported_fails(tmp_path):
    """Attack: the theorem's proof cites a lemma it does not depend on (and keeps doing so
    after the one repair round): still an error, never proved."""
    padded = proof("By Lemma~\\ref{lem:A} and Lemma~\\ref{lem:X}, the theorem follows.")
    script = Script().on("prover", "T", padded)
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A"), lemma("X"), lemma("T", "A", root=True))
    state = await _run(ctx)
    assert state.status == "abandoned"
    assert "not part of it: X" in state.status_reason
    assert len(script.calls("prover", "T")) == 2  # one repair round with the finding, no more


async def test_pruning_keeps_a_lemma_cited_through_an_unused_one(tmp_path):
    """Attack on the pruning itself: T depends on Y, Y on X; T's proof cites X (allowed through
    Y) but not Y. Pruning Y must not turn T's valid citation of X into an error, nor drop X."""
    script = Script().on("prover", "T", proof("By Lemma~\\ref{lem:A} and Lemma~\\ref{lem:X}, done."))
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("A"), lemma("X"), lemma("Y", "X"), lemma("T", "A", "Y", root=True))
    state = await _run(ctx)
    assert state.status in PROVEN, state.status_reason
    assert sorted(state.lemma_dag["T"].dependencies) == ["A", "X"]
    assert "not used by the proof" in state.proven_lemmas["Y"].level_note


async def test_hostile_lemma_ids_never_become_labels(tmp_path):
    """Attack: a plan whose ids are LaTeX that would escape a \\label (and collide)."""
    evil = "}\\input{/etc/passwd}"
    plan = {
        "formal_statement": "Main.",
        "lemmas": [
            {"id": evil, "statement": "helper", "dependencies": []},
            {"id": evil, "statement": "helper 2", "dependencies": [evil]},
            {"id": "T", "statement": "Main.", "dependencies": [evil], "is_root": True},
        ],
    }
    script = Script().on("formalizer", None, plan)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "completed", out.reason
    state = ctx.bus.get_theory_state()
    assert set(state.lemma_dag) <= {"L1", "L2", "L3"}
    assert not any(
        "\\input" in lid or "\\input" in d for n in state.lemma_dag.values() for lid in [n.id] for d in n.dependencies
    )
