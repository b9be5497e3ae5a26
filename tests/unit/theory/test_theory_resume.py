"""Checkpoint/resume, cancellation and budget stops leave a consistent TheoryState."""

from __future__ import annotations

import asyncio

import pytest
from theory_script import Script, fail, lemma, make_ctx, put_state

from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.types.artifacts import FailedAttempt, ProofRecord
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="the conjecture")


def crashed_state(ctx):
    state = put_state(ctx, lemma("L1"), lemma("L2"), lemma("T", "L1", "L2", root=True))
    state.status = "in_progress"
    state.proven_lemmas["L1"] = ProofRecord(lemma_id="L1", proof="old proof", verification_level="reviewed")
    state.lemma_dag["L1"].status = "proved"
    state.lemma_dag["L2"].status = "in_progress"  # the process died while L2 was being proved
    state.failed_attempts.append(FailedAttempt(lemma_id="L2", attempt=1, error_category="gap"))
    ctx.bus.put_theory_state(state)


async def test_resume_never_reproves_a_proven_lemma(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    crashed_state(ctx)
    out = await TheoryStage().run(ctx, SPEC, resume=True)
    state = ctx.bus.get_theory_state()
    assert out.status == "completed" and state.status == "self_reviewed"
    assert script.calls("prover", "L1") == [] and script.calls("verifier", "L1") == []
    assert state.proven_lemmas["L1"].proof == "old proof"
    # L2's earlier failure counts: its proof is attempt 2
    assert state.proven_lemmas["L2"].attempts == 2


async def test_fresh_run_starts_from_the_formalized_dag(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    crashed_state(ctx)
    await TheoryStage().run(ctx, SPEC, resume=False)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    assert len(script.calls("prover", "L1")) == 1 and state.proven_lemmas["L1"].proof != "old proof"
    assert state.failed_attempts == [] and state.proven_lemmas["L2"].attempts == 1


async def test_resume_of_a_finished_theorem_does_nothing(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    calls = len(script.requests)
    out = await TheoryStage().run(ctx, SPEC, resume=True)
    assert out.status == "completed" and len(script.requests) == calls


async def test_resume_gives_a_failed_lemma_the_attempts_it_has_left(tmp_path):
    script = Script().on("verifier", "L1", fail("gap"), fail("gap"), {"verdict": "pass", "confidence": 1})
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_iterations=2)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    assert ctx.bus.get_theory_state().status == "abandoned"
    ctx.settings = ctx.settings.model_copy(update={"theory_max_iterations": 3})
    await TheoryStage().run(ctx, SPEC, resume=True)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed" and state.proven_lemmas["L1"].attempts == 3


async def test_cancellation_leaves_a_resumable_state(tmp_path):
    script = Script(delay_s=0.01)
    ctx, _, _ = make_ctx(tmp_path, script, theory_concurrency=2)
    put_state(ctx, lemma("L1"), lemma("L2", "L1"), lemma("L3", "L1"), lemma("T", "L2", "L3", root=True))
    task = asyncio.create_task(TheoryStage().run(ctx, SPEC))
    while "L1" not in ctx.bus.get_theory_state().proven_lemmas:
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.015)  # L2/L3 are now in flight
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    on_disk = ctx.bus.load("s1", ctx.session.path).get_theory_state()
    assert on_disk.status == "in_progress"
    assert all(n.status != "in_progress" for n in on_disk.lemma_dag.values())
    assert "L1" in on_disk.proven_lemmas
    assert ctx.session.load_checkpoint()["theory"]["in_flight"] == []
    proven_before = set(on_disk.proven_lemmas)
    before = {lid: len(script.calls("prover", lid)) for lid in proven_before}
    ctx.bus = ctx.bus.load("s1", ctx.session.path)
    await TheoryStage().run(ctx, SPEC, resume=True)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    assert {lid: len(script.calls("prover", lid)) for lid in proven_before} == before


async def test_budget_stop_propagates_and_leaves_in_progress(tmp_path):
    script = Script()
    calls = {"n": 0}

    def prover(request):
        calls["n"] += 1
        if calls["n"] == 2:
            raise BudgetExceededError("budget of $0.01 reached")
        return {"proof": "Expand the square and use that it is nonnegative.", "self_assessment": {"confidence": 0.5}}

    script.defaults["prover"] = prover
    ctx, _, _ = make_ctx(tmp_path, script, theory_concurrency=1)
    put_state(ctx, lemma("L1"), lemma("L2"), lemma("T", "L1", "L2", root=True))
    with pytest.raises(BudgetExceededError):
        await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.load("s1", ctx.session.path).get_theory_state()
    assert state.status == "in_progress" and "resume" in state.status_reason
    assert len(state.proven_lemmas) == 1
    assert all(n.status in ("pending", "proved") for n in state.lemma_dag.values())
