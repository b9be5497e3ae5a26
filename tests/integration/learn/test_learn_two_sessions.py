"""Session 1 learns; session 2 starts with what session 1 learned: its prover would be offered
the distilled skill and every system prompt carries the insight in <memories>."""

from __future__ import annotations

from dataclasses import replace

from learnkit import (
    DISTILLED,
    INSIGHTS,
    REVIEWER,
    make_ctx,
    record_session,
    responder,
    theory_state,
)

from eurekaclaw.agents.base import AgentContext, BaseAgent
from eurekaclaw.agents.learn.services import build_memory_services, memories_block_for
from eurekaclaw.agents.learn.stage import LearnStage
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.types.tasks import InputSpec

LEMMA = (
    "For arms whose rewards have variance sigma_i^2 much smaller than their range, "
    "bound the number of pulls of a suboptimal arm using Bernstein's inequality."
)


class _Probe(BaseAgent):
    role = "prover"


async def test_session_two_gets_the_skill_and_memory_of_session_one(tmp_path):
    domain_skills = tmp_path / "plugin_skills"
    domain_skills.mkdir()
    s1 = build_memory_services(tmp_path, "s1", "mab", [domain_skills])
    backend = ScriptedBackend(responder=responder({"InsightBatch": INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx1 = make_ctx(tmp_path, "s1", backend, services=s1)
    # a session that proved its theorem with independent reviews: its results are established
    record_session(ctx1, theory_state("proved", reviewer=REVIEWER))
    assert (await LearnStage().run(ctx1, InputSpec(mode="prove", statement="x"))).status == "completed"

    # --- session 2: built fresh from disk, as the orchestrator would
    s2 = build_memory_services(tmp_path, "s2", "mab", [domain_skills])
    chosen = s2.skill_injector.top_k(LEMMA, role="prover")
    names = [s.meta.name for s in chosen]
    assert names[0] == "bernstein-variance-pull-counts", names
    skills_block = s2.skill_injector.render_for_prompt(chosen)
    assert '<skill name="bernstein-variance-pull-counts">' in skills_block

    block = memories_block_for(s2.memory, "mab", LEMMA)
    assert block.startswith("<memories>") and "Bernstein for variance-aware pull counts" in block
    assert "replace Hoeffding by Bernstein" in block
    # another domain's sessions do not see these memories
    assert memories_block_for(s2.memory, "general", LEMMA) == ""

    # BaseAgent puts the block into every system prompt of session 2
    ctx2 = make_ctx(tmp_path, "s2", ScriptedBackend(default="x"), services=replace(s2, memories_block=block))
    request = _Probe(ctx2).request("prove it", system="You are the prover.", extra_system=skills_block)
    assert "<memories>" in request.system_dynamic and "bernstein-variance-pull-counts" in request.system_dynamic

    # session 2 can also reuse session 1's verified results, and sees its failed strategies
    assert s2.memory.search_theorems("Hoeffding confidence radius for empirical means", k=1)
    assert s2.memory.recall("theory.failed_strategies.mab")


PASS = {"verdict": "pass", "confidence": 0.9, "errors": [], "summary": "correct"}
CONSISTENT = {
    "proves_statement": True,
    "assumptions_respected": True,
    "cited_lemmas_used_correctly": True,
    "verdict": "consistent",
    "issues": [],
}


def _theory_reply(request):
    if request.role in ("prover", "refiner"):
        return {
            "proof": f"Proof of {request.lemma_id} by Bernstein's inequality.",
            "self_assessment": {"confidence": 0.8, "gaps": [], "weakest_step": ""},
        }
    return {"verifier": PASS, "consistency_checker": CONSISTENT, "counterexample_searcher": {"candidates": []}}.get(
        request.role
    )


async def test_session_two_prover_prompt_has_session_one_skill_and_memory(tmp_path):
    from eurekaclaw.agents.theory.stage import TheoryStage
    from eurekaclaw.types.artifacts import LemmaNode, TheoryState

    s1 = build_memory_services(tmp_path, "s1", "mab", [])
    backend1 = ScriptedBackend(responder=responder({"InsightBatch": INSIGHTS, "DistilledSkills": DISTILLED}))
    ctx1 = make_ctx(tmp_path, "s1", backend1, services=s1)
    record_session(ctx1)
    await LearnStage().run(ctx1, InputSpec(mode="prove", statement="x"))

    # session 2, wired the way the orchestrator wires it
    s2 = build_memory_services(tmp_path, "s2", "mab", [])
    s2.memories_block = memories_block_for(s2.memory, "mab", LEMMA)
    backend2 = ScriptedBackend(responder=_theory_reply)
    ctx2 = make_ctx(tmp_path, "s2", backend2, services=s2)
    dag = {
        "L1": LemmaNode(id="L1", statement=LEMMA, informal=LEMMA),
        "T": LemmaNode(id="T", statement="The variance-aware regret bound.", dependencies=["L1"], is_root=True),
    }
    ctx2.bus.put_theory_state(
        TheoryState(
            informal_statement="variance-aware bound",
            formal_statement="The variance-aware regret bound.",
            lemma_dag=dag,
            formalized_dag={k: v.model_copy(deep=True) for k, v in dag.items()},
            open_goals=list(dag),
        )
    )
    await TheoryStage().run(ctx2, InputSpec(mode="prove", statement="variance-aware bound"))

    prover_calls = [c for c in backend2.calls if c.role == "prover" and c.lemma_id == "L1"]
    assert prover_calls, [c.role for c in backend2.calls]
    system = prover_calls[0].system_text()
    assert '<skill name="bernstein-variance-pull-counts">' in system
    assert "<memories>" in system and "Bernstein for variance-aware pull counts" in system
    assert "bernstein-variance-pull-counts" in ctx2.bus.get("injected_skills")["L1"]

    # and session 2's Learn scores the skill it was given
    ctx2.llm = make_ctx(
        tmp_path,
        "s2b",
        ScriptedBackend(responder=responder({"InsightBatch": {"insights": []}, "DistilledSkills": {"skills": []}})),
    ).llm
    await LearnStage().run(ctx2, InputSpec(mode="prove", statement="x"))
    skill = build_memory_services(tmp_path, "s3", "mab", []).skill_registry.get("bernstein-variance-pull-counts")
    uses = [lid for lid, names in ctx2.bus.get("injected_skills").items() if skill.meta.name in names]
    # session 2's proofs were reviewed only by the model that wrote them: a self-review is no
    # success of the skill (nor a failure), so its statistics stay as they were
    assert "L1" in uses and all(session2_self_reviewed(ctx2))
    assert skill.meta.usage_count == 0 and skill.meta.success_rate is None


def session2_self_reviewed(ctx: AgentContext) -> list[bool]:
    state = ctx.bus.get_theory_state()
    return [rec.self_review for rec in state.proven_lemmas.values()]
