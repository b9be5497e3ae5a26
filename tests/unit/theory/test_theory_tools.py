"""The Prover may use the domain plugin's tools (not the literature tools); what it used is
recorded for the Learn stage."""

from __future__ import annotations

import json

from theory_script import Script, fail, lemma, make_ctx, put_state

from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.domains import DomainPlugin
from eurekaclaw.tools.base import BaseTool
from eurekaclaw.types.tasks import InputSpec


class Square(BaseTool):
    name = "square"
    description = "square a number"

    def input_schema(self):
        return {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}

    async def call(self, x):
        return {"value": x * x}


class Search(BaseTool):
    name = "arxiv_search"
    description = "literature search"

    def input_schema(self):
        return {"type": "object", "properties": {}}

    async def call(self):
        return {}


class Plugin(DomainPlugin):
    name = "toy"

    def register_tools(self, registry):
        registry.register(Square())

    def get_workflow_hint(self):
        return "Toy domain."

    def get_skills_dirs(self):
        return []

    def get_benchmark_problems(self, level):
        return []


def tool_prover(request):
    if request.tools and not any(m.role == "assistant" for m in request.messages):
        return {"tool_calls": [{"id": "c1", "name": "square", "input": {"x": 3}}]}
    return {
        "text": "Here it is:\n"
        + json.dumps({"proof": "9 = 3^2, computed with the symbolic tool.", "self_assessment": {"confidence": 0.7}})
    }


async def test_prover_uses_domain_tools_and_records_them(tmp_path):
    script = Script().on("prover", "L1", tool_prover)
    ctx, _, _ = make_ctx(tmp_path, script)
    ctx.plugin = Plugin()
    ctx.plugin.register_tools(ctx.tools)
    ctx.tools.register(Search())
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    state = ctx.bus.get_theory_state()
    assert (
        state.status == "self_reviewed"
        and state.proven_lemmas["L1"].proof == "9 = 3^2, computed with the symbolic tool."
    )
    first = script.calls("prover", "L1")[0]
    assert [t.name for t in first.tools] == ["square"]  # not the literature tool
    second = script.calls("prover", "L1")[1]
    assert '{"value": 9}' in second.prompt_text()  # the tool result went back to the model
    traces = {t["lemma_id"]: t for t in ctx.bus.get("tool_traces")}
    assert traces["L1"] == {"lemma_id": "L1", "success": True, "tools": ["square"]}
    assert "Toy domain." in script.calls("verifier", "L1")[0].system_text()


class Symbolic(Square):
    name = "symbolic"  # the session-wide tool the refiner is offered (tools/roles.py)


async def test_tools_the_refiner_used_are_recorded_with_the_provers(tmp_path):
    def tool_refiner(request):
        if request.tools and not any(m.role == "assistant" for m in request.messages):
            return {"tool_calls": [{"id": "r1", "name": "symbolic", "input": {"x": 4}}]}
        return {"text": json.dumps({"proof": "16 = 4^2 by direct computation, so the bound holds with equality."})}

    script = Script().on("verifier", "L1", fail("logic"), {"verdict": "pass", "confidence": 0.9, "errors": []})
    script.on("refiner", "L1", tool_refiner)
    ctx, _, _ = make_ctx(tmp_path, script)
    ctx.tools.register(Symbolic())
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    assert ctx.bus.get_theory_state().proven_lemmas["L1"].proof.startswith("16 = 4^2")
    assert [t.name for t in script.calls("refiner", "L1")[0].tools] == ["symbolic"]
    traces = {t["lemma_id"]: t for t in ctx.bus.get("tool_traces")}
    assert traces["L1"] == {"lemma_id": "L1", "success": True, "tools": ["symbolic"]}  # the refiner's call


async def test_memory_guided_prover_sees_failed_strategies_from_real_memory(tmp_path):
    from eurekaclaw.memory.manager import MemoryManager

    memory = MemoryManager(tmp_path / "home", "s1")
    memory.remember("theory.failed_strategies.amgm", "squaring both sides went in circles", tags=["failed_strategy"])
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script, theory_pipeline="memory_guided")
    ctx.domain = "amgm"  # failed strategies are offered within their own domain only
    ctx.services.memory = memory
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    assert ctx.bus.get_theory_state().status == "self_reviewed"
    assert "squaring both sides went in circles" in script.calls("prover", "L1")[0].prompt_text()

    empty = MemoryManager(tmp_path / "empty", "s2")
    script2 = Script()
    ctx2, _, _ = make_ctx(tmp_path / "two", script2, theory_pipeline="memory_guided")
    ctx2.services.memory = empty
    put_state(ctx2, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx2, InputSpec(mode="prove", statement="s"))
    assert ctx2.bus.get_theory_state().status == "self_reviewed"
    assert "From earlier sessions" not in script2.calls("prover", "L1")[0].prompt_text()
