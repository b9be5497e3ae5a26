"""FormalizeStage and the Formalizer: validation, one repair round, clear failure (scenario g)."""

from __future__ import annotations

from theory_script import Script, make_ctx

from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.types.artifacts import KnownResult, ResearchBrief, ResearchDirection
from eurekaclaw.types.memory import DomainInsight
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="For all x > 0, x + 1/x >= 2.")


def lem(lid, deps=(), root=False, **extra):
    return {"id": lid, "statement": f"S {lid}", "dependencies": list(deps), "is_root": root, **extra}


def plan(*lemmas, **extra):
    return {
        "formal_statement": "\\forall x>0: x + 1/x \\ge 2",
        "assumptions": ["x > 0"],
        "lemmas": list(lemmas),
        **extra,
    }


def plan_calls(script: Script) -> list:
    """The requests for a whole plan (a claim repair round is asked for separately)."""
    return [c for c in script.calls("formalizer") if c.output_name() == "FormalPlan"]


CYCLIC = plan(lem("A", ["C"]), lem("B", ["A"]), lem("C", ["B"]), lem("T", ["C"], True))
GOOD = plan(lem("A"), lem("B", ["A"]), lem("T", ["B"], True))


async def test_g_cyclic_plan_repaired_once_then_rejected(tmp_path):
    script = Script().on("formalizer", None, CYCLIC)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "failed"
    assert "dependency cycle: " in out.reason
    cycle = out.reason.split("dependency cycle: ")[1].split(" (")[0].split(" -> ")
    assert cycle[0] == cycle[-1] and set(cycle) == {"A", "B", "C"}
    calls = plan_calls(script)
    assert len(calls) == 2  # the plan, then exactly one repair
    repair_prompt = calls[1].messages[-1].text()
    assert "dependency cycle:" in repair_prompt and "A" in repair_prompt and "C" in repair_prompt
    state = ctx.bus.get_theory_state()
    assert state.status == "pending" and state.lemma_dag == {}
    assert state.status_reason.startswith("formalization failed:") and "cycle" in state.status_reason


async def test_g_cyclic_plan_fixed_by_the_repair(tmp_path):
    script = Script().on("formalizer", None, CYCLIC, GOOD)
    ctx, _, events = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "completed"
    state = ctx.bus.get_theory_state()
    assert list(state.lemma_dag) == ["A", "B", "T"]  # topological order
    assert state.open_goals == ["A", "B", "T"]
    assert state.root_id() == "T" and state.formalized_dag.keys() == state.lemma_dag.keys()
    assert state.formal_statement.startswith("\\forall") and state.assumptions == ["x > 0"]
    assert [p.provenance for p in state.proof_plan] == ["new", "new", "new"]  # derived per lemma
    assert {d["lemma_id"] for k, d in events if k == "lemma"} == {"A", "B", "T"}


async def test_structural_problems_named(tmp_path):
    bad = plan(lem("A"), lem("A"), lem("B", ["missing"]), lem("T", ["A"], True), lem("U", [], True))
    script = Script().on("formalizer", None, bad)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "failed"
    # a repeated id and a dangling reference are mended by code; two roots need the model
    assert "exactly one lemma must be the main theorem" in out.reason
    assert "used 2 times" not in out.reason and "'missing'" not in out.reason
    (repair,) = [c for c in plan_calls(script)][1:]
    assert "exactly one lemma must be the main theorem" in repair.prompt_text()
    assert "'missing'" not in repair.prompt_text()


async def test_ids_and_dangling_edges_are_repaired_by_code_before_any_model_round(tmp_path):
    bad = plan(lem("A"), lem("A", ["A"]), lem("B", ["missing", "lem:A", "B"]), lem("T", ["B", "T"], True))
    script = Script().on("formalizer", None, bad)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "completed", out.reason
    assert len(plan_calls(script)) == 1
    dag = ctx.bus.get_theory_state().lemma_dag
    assert dag["L2"].dependencies == ["L1"]  # the repeated id meant the A before it
    assert dag["L3"].dependencies == ["L2"]  # "lem:A": the nearest A; "missing" and itself dropped
    assert dag["L4"].is_root and dag["L4"].dependencies == ["L3"]


async def test_unmarked_root_is_the_one_lemma_nothing_depends_on(tmp_path):
    script = Script().on("formalizer", None, plan(lem("A"), lem("B", ["A"]), lem("T", ["B"])))
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "completed"
    state = ctx.bus.get_theory_state()
    assert state.root_id() == "T"
    assert len(plan_calls(script)) == 1  # fixed without a repair round
    assert any("T (which nothing depends on)" in n for n in state.notes)


async def test_unmarked_root_over_several_tops_becomes_the_formal_statement(tmp_path):
    script = Script().on("formalizer", None, plan(lem("A"), lem("B"), lem("C", ["A"])))
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "completed"
    state = ctx.bus.get_theory_state()
    root = state.lemma_dag[state.root_id()]
    assert root.id == "main" and root.statement == "\\forall x>0: x + 1/x \\ge 2"
    assert sorted(root.dependencies) == ["B", "C"]


async def test_two_roots_still_go_back_to_the_model(tmp_path):
    script = Script().on("formalizer", None, plan(lem("A", root=True), lem("B", root=True)), GOOD)
    ctx, _, _ = make_ctx(tmp_path, script)
    assert (await FormalizeStage().run(ctx, SPEC)).status == "completed"
    assert len(plan_calls(script)) == 2


async def test_unreadable_plan_fails_cleanly(tmp_path):
    script = Script().on("formalizer", None, "no json here")
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, SPEC)
    assert out.status == "failed" and "could not be read" in out.reason
    assert ctx.bus.get_theory_state().status == "pending"


async def test_unused_lemmas_pruned_and_labelled_plan_kept(tmp_path):
    p = plan(
        lem("A", provenance="known", citation="arXiv:1234.5678"),
        lem("X"),
        lem("T", ["A"], True),
        proof_plan=[
            {
                "id": "s1",
                "description": "cite A",
                "provenance": "known",
                "citation": "arXiv:1234.5678",
                "lemma_ids": ["A", "nope"],
            }
        ],
    )
    script = Script().on("formalizer", None, p)
    ctx, _, _ = make_ctx(tmp_path, script)
    await FormalizeStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert set(state.lemma_dag) == {"A", "T"}
    assert any("X dropped" in n for n in state.notes)
    assert state.proof_plan[0].provenance == "known" and state.proof_plan[0].lemma_ids == ["A"]
    assert state.lemma_dag["A"].provenance == "known" and state.lemma_dag["A"].citation == "arXiv:1234.5678"


async def test_explore_mode_uses_selected_direction_and_known_results(tmp_path):
    script = Script().on("formalizer", None, GOOD)
    ctx, _, _ = make_ctx(tmp_path, script)
    spec = InputSpec(mode="explore", statement="bandits")
    stage = FormalizeStage()
    assert "research brief" in stage.missing_inputs(ctx, spec)
    ctx.bus.put_research_brief(ResearchBrief(directions=[], selected_direction=None, gap_analysis="g"))
    assert "no selected direction" in stage.missing_inputs(ctx, spec)
    ctx.bus.put_research_brief(
        ResearchBrief(
            selected_direction=ResearchDirection(title="t", statement="UCB regret is O(log T)"),
            known_results=[KnownResult(statement="Hoeffding's inequality", source="hoeffding1963")],
            gap_analysis="nobody did it",
        )
    )
    assert stage.missing_inputs(ctx, spec) is None
    out = await stage.run(ctx, spec)
    assert out.status == "completed"
    prompt = script.calls("formalizer")[0].prompt_text()
    assert "UCB regret is O(log T)" in prompt and "hoeffding1963" in prompt and "nobody did it" in prompt
    state = ctx.bus.get_theory_state()
    assert state.informal_statement == "UCB regret is O(log T)"
    assert state.known_results[0].source == "hoeffding1963" and state.research_gap == "nobody did it"


async def test_resume_keeps_existing_formalization(tmp_path):
    script = Script().on("formalizer", None, GOOD)
    ctx, _, _ = make_ctx(tmp_path, script)
    await FormalizeStage().run(ctx, SPEC)
    out = await FormalizeStage().run(ctx, SPEC, resume=True)
    assert out.summary == "already formalized" and len(plan_calls(script)) == 1


def seeded_memory(home, empty: bool = False) -> MemoryManager:
    """A real memory store with one result, one failed strategy and one pitfall of the
    `amgm` domain (or nothing)."""
    memory = MemoryManager(home / "memory-home", "s0", HashingEmbedder())
    if not empty:
        memory.add_theorem(
            "AM-GM for two reals: for all x > 0, x + 1/x >= 2",
            "amgm",
            "smt",
            established=True,
            session_status="proved",
            claim="For all x > 0: x + 1/x ≥ 2",
        )
        memory.remember("theory.failed_strategies.amgm", "squaring both sides loops", tags=["failed_strategy"])
        memory.save_insight(
            DomainInsight(
                domain="amgm", category="pitfalls", title="division", content="check x != 0 before dividing by x"
            )
        )
    return memory


async def test_memory_guided_feeds_memories_to_formalizer(tmp_path):
    script = Script().on("formalizer", None, GOOD)
    ctx, _, _ = make_ctx(tmp_path, script, theory_pipeline="memory_guided")
    ctx.domain = "amgm"  # failed strategies are offered within their own domain only
    ctx.services.memory = seeded_memory(tmp_path)
    await FormalizeStage().run(ctx, SPEC)
    prompt = script.calls("formalizer")[0].prompt_text()
    for fragment in ("AM-GM for two reals", "squaring both sides loops", "check x != 0"):
        assert fragment in prompt
    # a stored result is offered as the claim that was checked, its prose beside it
    assert "[smt] For all x > 0: x + 1/x ≥ 2 (in words: AM-GM for two reals" in prompt


async def test_memory_guided_works_without_memory(tmp_path):
    for i, memory in enumerate((None, seeded_memory(tmp_path, empty=True))):
        script = Script().on("formalizer", None, GOOD)
        ctx, _, _ = make_ctx(tmp_path / str(i), script, theory_pipeline="memory_guided")
        if memory is not None:
            ctx.services.memory = memory
        out = await FormalizeStage().run(ctx, SPEC)
        assert out.status == "completed"
        assert "From earlier sessions" not in script.calls("formalizer")[0].prompt_text()


async def test_default_pipeline_does_not_query_memory(tmp_path):
    script = Script().on("formalizer", None, GOOD)
    ctx, _, _ = make_ctx(tmp_path, script)
    ctx.domain = "amgm"
    ctx.services.memory = seeded_memory(tmp_path)
    await FormalizeStage().run(ctx, SPEC)
    assert "AM-GM for two reals" not in script.calls("formalizer")[0].prompt_text()
