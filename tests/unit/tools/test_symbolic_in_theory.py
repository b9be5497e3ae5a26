"""The proving roles are offered `symbolic`; what it says reaches the model and never the
lemma's verification level."""

from __future__ import annotations

import json

from unit.theory.theory_script import PASS, Script, fail, lemma, make_ctx, proof, put_state

from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.tools.symbolic import register_symbolic_tool
from eurekaclaw.types.tasks import InputSpec

CHECK = {"operation": "check", "expression": "x^2 - 2*x + 1 >= 0"}


def calls_symbolic_then(answer):
    """First turn: ask the tool; afterwards: answer (and remember what the tool said)."""
    seen: list[str] = []

    def reply(request):
        if request.tools and not any(m.role == "assistant" for m in request.messages):
            return {"tool_calls": [{"id": f"c{len(seen)}", "name": "symbolic", "input": CHECK}]}
        seen.append(request.prompt_text())
        return {"text": json.dumps(answer)}

    reply.seen = seen
    return reply


async def test_prover_refiner_and_verifier_use_symbolic_without_it_raising_a_level(tmp_path):
    prover = calls_symbolic_then(proof("First try: expand and compare the terms."))
    refiner = calls_symbolic_then(proof("Second try, with the square completed."))
    reviews = iter([fail("gap"), PASS])
    verifier_first = calls_symbolic_then(PASS)

    def verifier(request):
        if request.tools and not any(m.role == "assistant" for m in request.messages):
            return verifier_first(request)
        return next(reviews)

    script = Script().on("prover", "L1", prover).on("refiner", "L1", refiner).on("verifier", "L1", verifier)
    ctx, _, _ = make_ctx(tmp_path, script)
    register_symbolic_tool(ctx.tools, ctx.settings)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))

    for role in ("prover", "refiner", "verifier"):
        assert [t.name for t in script.calls(role, "L1")[0].tools] == ["symbolic"], role
    # the tool really ran: its checkers' verdicts went back to the model
    assert '"checker": "falsifier"' in prover.seen[0] and '"counts_as_verification": false' in prover.seen[0]
    record = ctx.bus.get_theory_state().proven_lemmas["L1"]
    assert record.proof == "Second try, with the square completed."
    # L1 has no claim: whatever the tool said (z3 may have proved x^2-2x+1 >= 0), the level
    # comes from the pipeline's own checks only
    assert record.verification_level not in ("smt", "formal")
    assert not {c.checker for c in record.checks} & {"sympy", "symbolic"}
    traces = {t["lemma_id"]: t for t in ctx.bus.get("tool_traces")}
    assert "symbolic" in traces["L1"]["tools"]


async def test_a_backend_that_cannot_use_tools_gets_plain_structured_requests(tmp_path):
    """The local backend (offers_tools = False) answers without tools anyway; the agents ask it
    for the object directly (with its grammar) instead of a free-text round and a repair."""
    script = Script()
    ctx, backend, _ = make_ctx(tmp_path, script)
    backend.offers_tools = False
    register_symbolic_tool(ctx.tools, ctx.settings)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, InputSpec(mode="prove", statement="s"))
    # one model proves and reviews here: every proof is complete, and the status says who looked
    assert ctx.bus.get_theory_state().status == "self_reviewed"
    for role in ("prover", "verifier"):
        first = script.calls(role, "L1")[0]
        assert first.tools == [] and first.output_name() is not None, role
