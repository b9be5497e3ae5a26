"""Counterexamples (scenarios e and f): mechanical refutation, the CounterexampleSearcher whose
proposals only count when the claim fails on them, re-planning, and unparseable claims.
These run the real eurekaclaw.verify checkers on claims they refute at once (x^2 <= x)."""

from __future__ import annotations

from theory_script import Script, claim, fail, lemma, make_ctx, put_state

from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="the conjecture")
FALSE_CLAIM = claim("x**2 <= x", "x")
TRUE_CLAIM = claim("x**2 >= 0", "x")

REPLAN = {
    "rationale": "use a true inequality instead",
    "lemmas": [
        {
            "id": "L1b",
            "statement": "x^2 >= 0",
            "dependencies": [],
            "claim": {"variables": [{"name": "x", "domain": "real"}], "conclusion": "x**2 >= 0"},
        },
        {"id": "L2", "statement": "L2 via L1b", "dependencies": ["L1b"]},
    ],
}


async def test_e_false_lemma_refuted_dependants_reopened_replanned_proved(tmp_path):
    script = Script().on("formalizer", "L1", REPLAN)  # the re-plan is charged to L1
    ctx, _, events = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L0"), lemma("L1", claim=FALSE_CLAIM), lemma("L2", "L1"), lemma("T", "L0", "L2", root=True))
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.lemma_dag["L1"].status == "refuted" and "L1" not in state.proven_lemmas
    cx = [c for c in state.counterexamples if c.lemma_id == "L1"]
    assert cx and cx[0].confirmed and cx[0].assignment
    assert script.calls("prover", "L1") == []  # the claim was refuted before any proof was asked
    reopened = [d for k, d in events if k == "lemma" and d.get("reopened_by") == "L1"]
    assert {d["lemma_id"] for d in reopened} == {"L2", "T"}
    assert state.replans == 1
    replan_prompt = script.calls("formalizer")[0].prompt_text()
    assert "L1" in replan_prompt and "x**2 <= x" in replan_prompt
    assert state.lemma_dag["L2"].dependencies == ["L1b"]
    assert state.lemma_dag["L1b"].claim is not None
    assert set(state.proven_lemmas) == {"L0", "L1b", "L2", "T"}
    assert state.status == "self_reviewed" and out.status == "completed"
    assert "\\label{lem:L1}" not in state.assembled_proof  # the refuted path is not used


async def test_f_false_main_statement_is_refuted(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True, claim=FALSE_CLAIM))
    out = await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "refuted" and out.status == "partial"
    assert state.lemma_dag["T"].status == "refuted" and "T" not in state.proven_lemmas
    assert state.counterexamples[0].lemma_id == "T" and state.counterexamples[0].confirmed
    assert "counterexample to the main statement as formalized" in state.status_reason
    assert FALSE_CLAIM.conclusion in state.status_reason  # which claim was refuted
    assert "check that it says what you meant" in state.status_reason
    assert "x = " in state.status_reason
    assert script.requests == []  # refuted by machine before any lemma was worked on


async def test_no_replan_left_abandons(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_replans=0)
    put_state(ctx, lemma("L1", claim=FALSE_CLAIM), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "abandoned" and state.replans == 0
    assert script.calls("formalizer") == []
    assert any("no re-plan left" in n for n in state.notes)
    assert "T (blocked)" in state.status_reason


async def test_unusable_replan_abandons(tmp_path):
    bad = {"lemmas": [{"id": "L1", "statement": "same id again"}]}
    script = Script().on("formalizer", "L1", bad)
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1", claim=FALSE_CLAIM), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "abandoned" and len(script.calls("formalizer")) == 2  # one repair
    assert any("re-plan after the refutation of L1 rejected" in n for n in state.notes)


async def test_searcher_counts_only_machine_confirmed_instances(tmp_path, monkeypatch):
    # A claim the falsifier is not given the chance to refute, so the searcher's proposals
    # are the only evidence: the first proposal is talk (the claim holds there), the second
    # is a real counterexample.
    import eurekaclaw.agents.theory.lemma_loop as loop

    async def no_checks(*args, **kwargs):
        return []

    monkeypatch.setattr(loop, "run_checks", no_checks)
    talk = {"candidates": [{"assignment": {"x": 3}, "reasoning": "this is clearly a counterexample"}]}
    real = {"candidates": [{"assignment": {"x": 1000}, "reasoning": "large x"}]}
    script = Script().on("verifier", "L1", fail("bound_too_loose"))
    script.on("counterexample_searcher", "L1", talk, real)
    ctx, _, _ = make_ctx(tmp_path, script, theory_max_replans=0)
    put_state(ctx, lemma("L1", claim=claim("x <= 100", "x")), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert len(script.calls("counterexample_searcher", "L1")) == 2
    assert [f.error_category for f in state.failed_attempts] == ["bound_too_loose"] * 2
    assert state.lemma_dag["L1"].status == "refuted"
    (cx,) = state.counterexamples
    assert cx.assignment == {"x": 1000} and cx.confirmed and "counterexample_search" in cx.checker


async def test_searcher_is_not_asked_without_a_claim(tmp_path):
    script = Script().on("verifier", "L1", fail("gap"), {"verdict": "pass", "confidence": 0.9})
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1"), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    assert script.calls("counterexample_searcher") == []
    assert ctx.bus.get_theory_state().status == "self_reviewed"


async def test_true_claim_lemma_records_its_checks(tmp_path):
    script = Script()
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1", claim=TRUE_CLAIM), lemma("T", "L1", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.status == "self_reviewed"
    rec = state.proven_lemmas["L1"]
    checkers = {c.checker for c in rec.checks}
    assert "llm_review" in checkers and len(checkers) >= 2  # the mechanical checkers that ran
    assert not any(c.verdict == "failed" for c in rec.checks)
    assert rec.verification_level in ("smt", "formal", "reviewed")


async def test_unparseable_claim_reported_once_then_dropped(tmp_path):
    plan = {
        "formal_statement": "F",
        "lemmas": [
            {"id": "A", "statement": "a", "claim": {"variables": [{"name": "x"}], "conclusion": "x +* 2 <="}},
            {"id": "B", "statement": "b", "claim": {"variables": [{"name": "y"}], "conclusion": "__import__('os')"}},
            {"id": "T", "statement": "t", "dependencies": ["A", "B"], "is_root": True},
        ],
    }
    fixes = {
        "fixes": [
            {"lemma_id": "A", "claim": {"variables": [{"name": "x"}], "conclusion": "x**2 + 1 >= 2*x"}},
            {"lemma_id": "B", "claim": {"variables": [{"name": "y"}], "conclusion": "y.__class__ >= 0"}},
        ]
    }
    script = Script().on("formalizer", None, plan, fixes)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, InputSpec(mode="prove", statement="s"))
    assert out.status == "completed"
    state = ctx.bus.get_theory_state()
    assert state.lemma_dag["A"].claim.conclusion == "x**2 + 1 >= 2*x"
    assert state.lemma_dag["B"].claim is None
    assert any(n.startswith("claim of lemma B dropped") for n in state.notes)
    calls = script.calls("formalizer")
    assert len(calls) == 2 and "lemma A" in calls[1].messages[-1].text()
