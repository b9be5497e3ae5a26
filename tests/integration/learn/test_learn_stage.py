"""The Learn stage on a crafted session: every tier written, skill stats scored, skills
learned from tool traces and from the fast model; degraded (not crashed) on garbage replies."""

from __future__ import annotations

import json

import pytest
from learnkit import DISTILLED, INSIGHTS, L4_TEXT, MERGE, make_ctx, record_session, responder

from eurekaclaw.agents.learn.services import build_memory_services
from eurekaclaw.agents.learn.stage import LearnStage
from eurekaclaw.errors import BudgetExceededError
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.skills.registry import SkillRegistry
from eurekaclaw.types.memory import DomainInsight
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="UCB1 has logarithmic regret")


async def test_learn_writes_every_tier_and_scores_skills(tmp_path):
    backend = ScriptedBackend(responder=responder({"InsightBatch": INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx = make_ctx(tmp_path, "s1", backend)
    record_session(ctx)
    outcome = await LearnStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason

    # every model call was a fast, bounded, structured call
    assert {c.output_name() for c in backend.calls} == {"InsightBatch", "DistilledSkills"}
    limit = ctx.settings.max_tokens_learn
    assert limit >= 4096  # room for the lists the Learn prompts ask for
    assert all(c.tier == "fast" and c.max_tokens == limit and c.role == "learn" for c in backend.calls)

    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    # tier 3: the three proven lemmas with the levels they claimed, linked by "uses" — none
    # established, because the session was abandoned
    results = [n for n in mm.graph.nodes() if n.kind == "result" and not n.retracted]
    assert sorted(n.claimed_level for n in results) == ["cited", "reviewed", "reviewed"]
    assert all(n.verification_level == "unverified" and not n.established for n in results)
    assert all(n.session_status == "abandoned" and "abandoned" in n.note for n in results)
    assert {e.relation for e in mm.graph.edges()} == {"uses", "contradicts"}
    assert len([e for e in mm.graph.edges() if e.relation == "uses"]) == 2
    assert all(n.domain == "mab" and n.session_id == "s1" for n in results)
    # the refuted lemma L5 is recorded as false, with its counterexample linked to it
    (false,) = [n for n in mm.graph.nodes() if n.retracted]
    assert false.statement.startswith("UCB1 regret is bounded by a constant") and "Delta" in false.retraction
    (cx,) = [n for n in mm.graph.nodes() if n.kind == "refutation"]
    assert any(e.source == cx.node_id and e.target == false.node_id for e in mm.graph.edges())
    # tier 2: the two identical failures remembered once; the counterexample too
    failed = mm.recall("theory.failed_strategies.mab")
    assert len(failed) == 1 and "bound_too_loose" in failed[0] and "variance" in failed[0]
    assert "failed_strategy" in mm.persistent.get("theory.failed_strategies.mab").tags
    assert "confirmed" in mm.recall("theory.counterexamples.mab")[0]
    # tier 4: two confident insights with valid categories, under the session's real domain
    saved = mm.list_insights("mab")
    assert sorted(i.title for i in saved) == [
        "Bernstein for variance-aware pull counts",
        "Uniform constant regret is false",
    ]
    assert next(i for i in saved if i.category == "pitfalls").confidence == pytest.approx(0.7)
    report = ctx.bus.get("learn_report")
    assert {t for t, _ in report["insights_skipped"]} == {"A shaky idea", "Bad category"}

    reg = SkillRegistry(tmp_path / "skills")
    # stats: L1 proved, L4 failed (in lemma order) → 1.0 then 0.3·0 + 0.7·1.0 = 0.7
    conc = reg.get("concentration-inequalities")
    assert conc.meta.usage_count == 2 and conc.meta.success_rate == pytest.approx(0.7)
    assert reg.get("union-bound-and-peeling").meta.success_rate == 1.0
    # martingale-arguments was injected for L2 but is below the relevance floor for it: the
    # lemma's success says nothing about it, so it is not credited
    assert reg.get("martingale-arguments").meta.usage_count == 0
    assert report["irrelevant_skills"] == ["L2:martingale-arguments"]
    assert reg.get("induction").meta.usage_count == 0  # L6 never finished: no verdict
    assert report["unknown_skills"] == ["no-such-skill"]
    stats = json.loads((tmp_path / "skills" / "_stats.json").read_text())["skills"]
    assert set(stats) == {"concentration-inequalities", "union-bound-and-peeling"}
    # the tool pattern "proved" L1 (a cited known result: trivial for tools) and L2, and failed
    # on L4: one real success against one failure is no skill
    assert reg.get("tool-pattern-simulate-bandit-then-fit-rate") is None
    assert report["tool_skills"] == []
    assert reg.get("tool-pattern-check-bound") is None  # a single tool is not a sequence
    # the distilled skill
    distilled = reg.get("bernstein-variance-pull-counts")
    assert distilled.meta.source == "distilled" and distilled.origin == "user"
    # a learned skill folder holds just its SKILL.md, so it can be shared as it is
    assert [p.name for p in (tmp_path / "skills" / "bernstein-variance-pull-counts").iterdir()] == ["SKILL.md"]
    distill_call = next(c for c in backend.calls if c.output_name() == "DistilledSkills")
    assert L4_TEXT[:40] in distill_call.prompt_text()
    # the counterexample of L5 is a lesson for the distiller too
    assert "'Delta': 0.01" in distill_call.prompt_text() and "Counterexamples" in distill_call.prompt_text()


async def test_learn_is_not_counted_twice_on_resume(tmp_path):
    backend = ScriptedBackend(responder=responder({"InsightBatch": INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx = make_ctx(tmp_path, "s1", backend)
    record_session(ctx)
    await LearnStage().run(ctx, SPEC)
    calls = len(backend.calls)
    again = await LearnStage().run(ctx, SPEC, resume=True)
    assert again.status == "completed" and "already" in again.summary
    assert len(backend.calls) == calls
    assert SkillRegistry(tmp_path / "skills").get("concentration-inequalities").meta.usage_count == 2


async def test_garbage_replies_degrade_with_reasons(tmp_path):
    backend = ScriptedBackend(default="I am a small model and I reply in prose.")
    ctx = make_ctx(tmp_path, "s1", backend)
    record_session(ctx)
    outcome = await LearnStage().run(ctx, SPEC)
    assert outcome.status == "partial"
    assert "insights:" in outcome.reason and "distill:" in outcome.reason
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    # the deterministic steps still happened
    assert len([n for n in mm.graph.nodes() if n.kind == "result" and not n.retracted]) == 3
    assert mm.recall("theory.failed_strategies.mab")
    assert SkillRegistry(tmp_path / "skills").get("concentration-inequalities").meta.usage_count == 2
    assert mm.list_insights("mab") == []
    assert ctx.bus.get("learn_progress") == [
        "knowledge_graph",
        "retractions",
        "failed_strategies",
        "skill_stats",
        "tool_patterns",
    ]
    # a retry asks the model again, but does not count the skills' uses twice
    calls = len(backend.calls)
    retry = await LearnStage().run(ctx, SPEC, resume=True)
    assert retry.status == "partial" and len(backend.calls) > calls
    assert SkillRegistry(tmp_path / "skills").get("concentration-inequalities").meta.usage_count == 2


async def test_near_duplicate_insight_is_merged_by_the_fast_model(tmp_path):
    services = build_memory_services(tmp_path, "s1", "mab", [], embedder=HashingEmbedder())
    old = services.memory.save_insight(
        DomainInsight(
            domain="mab",
            category="proof_strategy",
            title="Bernstein for variance pull counts",
            content="Replace Hoeffding by Bernstein's inequality when rewards have small variance; "
            "pull count scales with sigma^2/Delta^2.",
            confidence=0.6,
            source_session="s0",
        )
    )
    backend = ScriptedBackend(
        responder=responder({"InsightBatch": INSIGHTS, "DistilledSkills": DISTILLED, "MergeDecision": MERGE})
    )
    ctx = make_ctx(tmp_path, "s1", backend, services=services)
    record_session(ctx)
    outcome = await LearnStage().run(ctx, SPEC)
    assert outcome.status == "completed", outcome.reason
    merge_calls = [c for c in backend.calls if c.output_name() == "MergeDecision"]
    assert len(merge_calls) == 1 and "Bernstein for variance pull counts" in merge_calls[0].prompt_text()
    assert not old.exists()
    titles = sorted(i.title for i in services.memory.list_insights("mab"))
    assert titles == ["Bernstein for variance-aware bounds", "Uniform constant regret is false"]
    merged = next(i for i in services.memory.list_insights("mab") if i.title.startswith("Bernstein"))
    assert merged.content.startswith("Merged:") and merged.confidence == pytest.approx(0.85)


async def test_without_a_theory_state_learn_is_skipped(tmp_path):
    ctx = make_ctx(tmp_path, "s1", ScriptedBackend(default="x"))
    stage = LearnStage()
    assert "no theory state" in stage.missing_inputs(ctx, SPEC)
    assert (await stage.run(ctx, SPEC)).status == "skipped"


async def test_budget_exhaustion_propagates(tmp_path):
    def respond(request):
        raise BudgetExceededError("budget of $0.01 reached")

    ctx = make_ctx(tmp_path, "s1", ScriptedBackend(responder=respond))
    record_session(ctx)
    with pytest.raises(BudgetExceededError):
        await LearnStage().run(ctx, SPEC)
    # what was done before the model was needed is kept and will not be redone on resume
    assert ctx.bus.get("learn_progress") == [
        "knowledge_graph",
        "retractions",
        "failed_strategies",
        "skill_stats",
        "tool_patterns",
    ]


async def test_a_result_with_a_claim_is_stored_as_the_claim_checked_with_its_prose_beside_it(tmp_path):
    from learnkit import theory_state

    from eurekaclaw.types.artifacts import Claim, ClaimVariable

    state = theory_state()
    # the model's prose says more than the claim the checkers read: the graph keeps the claim
    state.lemma_dag["L1"].claim = Claim(
        variables=[ClaimVariable(name="x", domain="real")], assumptions=["x >= 1"], conclusion="x^2 >= x"
    )
    state.lemma_dag["L1"].statement = "For every real number x, x^2 >= x."
    backend = ScriptedBackend(responder=responder({"InsightBatch": INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx = make_ctx(tmp_path, "s1", backend)
    record_session(ctx, state)
    await LearnStage().run(ctx, SPEC)
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    (node,) = [n for n in mm.graph.nodes() if n.statement.startswith("For every real number x")]
    assert "x ≥ 1" in node.claim or "x >= 1" in node.claim
    assert node.shown().startswith(node.claim) and "in words: For every real number x" in node.shown()
