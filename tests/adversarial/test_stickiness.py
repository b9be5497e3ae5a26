"""Attacks on what must stick: a refuted claim coming back under new variable names, an
experiment contradiction escaped by re-formalizing with a spec that checks nothing, Learn
storing the claim it has just refuted, and a root claim narrower than the user's statement.

Each test is one attack by a scripted model (through the real Formalize, Theory, Experiment or
Learn stage) or a direct call, and asserts that the false or overstated result never reaches
the reader."""

from __future__ import annotations

from typing import Any

import pytest
from integration.learn.learnkit import make_ctx as learn_ctx
from integration.learn.learnkit import responder
from integration.orchestrator.test_orchestrator_contradiction import Formalize as FakeFormalize
from integration.orchestrator.test_orchestrator_contradiction import Theory as FakeTheory
from unit.theory.theory_script import Script, claim, lemma, make_ctx, put_state

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.experiment.evidence import apply_experiment_evidence
from eurekaclaw.agents.experiment.stage import ExperimentStage
from eurekaclaw.agents.experiment.violations import apply_required
from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.learn.services import build_memory_services
from eurekaclaw.agents.learn.stage import LearnStage
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.config import load_settings
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.memory.embeddings import HashingEmbedder
from eurekaclaw.memory.manager import MemoryManager
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.skills.registry import SkillRegistry
from eurekaclaw.types.artifacts import (
    BoundCheck,
    Claim,
    ClaimVariable,
    Counterexample,
    ExperimentResult,
    LemmaNode,
    ProofRecord,
    TheoryState,
)
from eurekaclaw.types.tasks import InputSpec
from eurekaclaw.verify.claim_match import refuted_by

SPEC = InputSpec(mode="prove", statement="the conjecture")
PROVEN = ("proved", "self_reviewed")


def V(name: str, domain: str = "real", **kw: Any) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)


# --- refutations stick up to renaming -----------------------------------------------------------

RENAMED_REPLAN = {
    "rationale": "the same bound, in other letters",
    "lemmas": [
        {
            "id": "L1b",
            "statement": "y^2 <= y",
            "dependencies": [],
            "claim_is_statement": True,
            "claim": {"variables": [{"name": "y", "domain": "real"}], "conclusion": "y*y <= y"},
        },
        {"id": "L2", "statement": "L2 via L1b", "dependencies": ["L1b"]},
    ],
}


async def test_a_refuted_claim_renamed_is_refuted_before_any_proof(tmp_path):
    """Attack: after `x^2 <= x` is refuted, the re-plan brings it back as `y*y <= y`."""
    script = Script().on("formalizer", "L1", RENAMED_REPLAN).on("formalizer", "L1b", {"lemmas": []})
    ctx, _, _ = make_ctx(tmp_path, script)
    put_state(ctx, lemma("L1", claim=claim("x**2 <= x", "x")), lemma("L2", "L1"), lemma("T", "L2", root=True))
    await TheoryStage().run(ctx, SPEC)
    state = ctx.bus.get_theory_state()
    assert state.lemma_dag["L1b"].status == "refuted"
    assert script.calls("prover", "L1b") == [] and script.calls("refiner", "L1b") == []
    again = [c for c in state.counterexamples if c.lemma_id == "L1b"]
    assert again and again[0].confirmed and "y" in again[0].assignment
    assert "L1b" not in state.proven_lemmas and state.status not in PROVEN


def test_a_refuted_claim_renamed_is_refuted_even_when_its_counterexample_is_irrational():
    """Attack: `x^2 != 2` on [1, 2] was refuted at √2 (a point exact rational evaluation cannot
    confirm); the same claim over `y` must still be refuted (same claim up to renaming)."""
    old = Claim(variables=[V("x", "interval", low=1, high=2)], conclusion="x^2 != 2")
    cx = Counterexample(lemma_id="L1", assignment={"x": "1.4142135623730951"}, confirmed=True, claim=old, checker="z3")
    new = Claim(variables=[V("y", "interval", low=1, high=2)], conclusion="y^2 != 2")
    match = refuted_by(new, [cx])
    assert match is not None and match.how == "same_claim" and match.renaming == {"y": "x"}


def test_a_refuted_claim_with_its_sides_swapped_and_renamed_is_refuted():
    """Attack: the refuted `a + b >= 2*a*b` comes back as `2*q*p <= q + p` (swapped and renamed)."""
    old = Claim(variables=[V("a"), V("b")], conclusion="a + b >= 2*a*b")
    cx = Counterexample(lemma_id="L1", assignment={"a": 2, "b": 3}, confirmed=True, claim=old, checker="falsifier")
    new = Claim(variables=[V("p"), V("q")], conclusion="2*q*p <= q + p")
    match = refuted_by(new, [cx])
    assert match is not None and match.how == "fails_at_counterexample"


def test_a_restricted_claim_is_not_refuted_by_a_point_it_excludes():
    """Control: `x^2 >= x` refuted at x = 1/2 does not refute `y^2 >= y` for y >= 1."""
    old = Claim(variables=[V("x")], conclusion="x^2 >= x")
    cx = Counterexample(lemma_id="L1", assignment={"x": 0.5}, confirmed=True, claim=old, checker="falsifier")
    assert refuted_by(Claim(variables=[V("y")], assumptions=["y >= 1"], conclusion="y^2 >= y"), [cx]) is None


# --- experiment contradictions stick -----------------------------------------------------------

ROOT_CLAIM = Claim(
    variables=[V("T", "natural", low=1), V("D", "interval", low=0, high=1, open_low=True)],
    conclusion="3*log(T)/D >= 0",
)


def _theory(formal: str = "R_T <= 3 log T / D", root_claim: Claim | None = ROOT_CLAIM, **extra: Any) -> TheoryState:
    root = LemmaNode(id="T", statement=formal, is_root=True, claim=root_claim, status="proved")
    return TheoryState(
        informal_statement="UCB1 regret is at most 3 log T / gap",
        formal_statement=formal,
        lemma_dag={"T": root},
        status="proved",
        **extra,
    )


def _violated_first_experiment(theory: TheoryState) -> ExperimentResult:
    first = ExperimentResult(
        spec={
            "source": "designer",
            "checked": {
                "bounds": {"regret": {"expression": "3*log(T)/D", "direction": "upper", "lemma_id": "T"}},
                "series": {"ucb": {"policy": "ucb1", "instance": "", "runs": 200}},
                "variables": {"": {"D": 0.05}},
            },
        },
        bound_checks=[
            BoundCheck(
                name="regret@ucb",
                horizon=10000,
                empirical_mean=812.4,
                std_error=5.0,
                theoretical=552.6,
                held=False,
                margin=-248.2,
                from_theorem=True,
            )
        ],
    )
    apply_required(None, theory, first)
    assert first.violations and first.required_checks
    return first


async def _second_round(tmp_path, theory: TheoryState, first: ExperimentResult, **settings: Any) -> TheoryState:
    ctx, _, _ = make_ctx(tmp_path, Script(), experiment_mode="false", **settings)
    ctx.bus.put_experiment_result(first)
    ctx.bus.put_theory_state(theory)
    await ExperimentStage().run(ctx, SPEC)
    verdict = apply_experiment_evidence(ctx.bus, replans_allowed=True)
    state = ctx.bus.get_theory_state()
    assert verdict == "contradicted"
    return state


async def test_a_reformalization_whose_experiment_checks_nothing_stays_contradicted(tmp_path):
    """Attack: after the contradiction the model formalizes the same plan again and the new
    experiment checks no bound at all; the theory stage ended proved."""
    first = _violated_first_experiment(_theory())
    again = _theory(contradiction_replans=1)
    state = await _second_round(tmp_path, again, first)
    assert state.status == "contradicted" and state.contradictions
    assert "regret@ucb" in state.contradictions[0]


async def test_a_reworded_theorem_without_the_bound_stays_contradicted(tmp_path):
    """Attack: the second formalization rewords the theorem (no claim) and its spec drops the
    violated bound: the old bound is re-checked against the stored measurement."""
    first = _violated_first_experiment(_theory())
    again = _theory(
        formal="For UCB1, regret grows like 3 log T over the gap.", root_claim=None, contradiction_replans=1
    )
    state = await _second_round(tmp_path, again, first)
    assert state.status == "contradicted"


def test_a_looser_bound_of_the_same_name_does_not_lift_a_contradiction_of_the_same_theorem():
    """Attack: the same theorem, but the new spec writes the violated bound 100 times looser."""
    first = _violated_first_experiment(_theory())
    second = ExperimentResult(
        spec={"checked": {"bounds": {"regret": {"expression": "300*log(T)/D", "direction": "upper"}}}}
    )
    still = apply_required(first, _theory(contradiction_replans=1), second)
    assert still == 1 and second.violations


class _CarelessExperiment(Stage):
    """First run: the simulation violates the bound (recorded as the real stage records it).
    Later runs: the real Experiment stage, with a spec that checks nothing (experiments off)."""

    name = "experiment"

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        if self.runs > 1:
            ctx.settings = ctx.settings.model_copy(update={"experiment_mode": "false"})
            return await ExperimentStage().run(ctx, spec, resume=resume)
        theory = ctx.bus.get_theory_state()
        first = _violated_first_experiment(theory)
        ctx.bus.put_experiment_result(first)
        return StageOutcome(status="completed")


async def test_a_whole_session_reformalized_after_a_contradiction_ends_contradicted():
    """Attack (the reported case, session level): the theorem is proved, the experiment violates
    its bound, the model formalizes the same statement again and the second experiment checks
    no bound; the theory stage proves the new formalization."""
    experiment = _CarelessExperiment()
    stages: dict[str, Any] = {name: None for name in ("survey", "write", "evaluate", "learn")}
    stages.update(formalize=FakeFormalize(), theory=FakeTheory(), experiment=experiment)
    orch = MetaOrchestrator(
        load_settings(), backend=ScriptedBackend(responder=lambda r: "ok"), stages=stages, plugins={}
    )
    result = await orch.run(InputSpec(mode="prove", statement="UCB1 regret is at most 3 log T / gap"))
    assert experiment.runs == 2  # the contradiction sent it back to formalize once
    assert result.theory_status == "contradicted"
    assert result.status != "completed"


# --- Learn never stores a refuted claim ----------------------------------------------------------

TAIL = Claim(variables=[V("n", "natural", low=2)], conclusion="Sum(1/k^2, (k, 2, n)) <= 0.6")
REFUTED_INSIGHTS = {
    "insights": [
        {
            "category": "domain_knowledge",
            "title": "Tail of the Basel sum",
            "content": "A handy bound: Sum(1/j^2, (j, 2, m)) <= 0.6 for every m.",
            "confidence": 0.9,
        },
        {
            "category": "proof_strategy",
            "title": "Telescoping",
            "content": "Compare 1/k^2 with 1/(k-1) - 1/k and telescope.",
            "confidence": 0.8,
        },
    ]
}
REFUTED_SKILLS = {
    "skills": [
        {
            "name": "basel-tail-bound",
            "description": "Bound the tail of the Basel sum",
            "when_to_use": "sums of inverse squares",
            "steps": ["Use the bound Sum(1/i^2, (i, 2, N)) < 0.6", "Conclude by comparison"],
        }
    ]
}


def _refuting_session() -> TheoryState:
    dag = {
        "L1": LemmaNode(id="L1", statement="tail bound", claim=TAIL, status="refuted"),
        "T": LemmaNode(id="T", statement="main", dependencies=[], is_root=True, status="pending"),
    }
    cx = Counterexample(
        lemma_id="L1", assignment={"n": 30}, confirmed=True, claim=TAIL, checker="falsifier", statement="tail bound"
    )
    return TheoryState(informal_statement="the Basel tail", lemma_dag=dag, counterexamples=[cx], status="abandoned")


def _learn_ctx(tmp_path, session_id: str, replies: dict[str, Any]):
    services = build_memory_services(tmp_path, session_id, "mab", [], embedder=HashingEmbedder())
    return learn_ctx(tmp_path, session_id, ScriptedBackend(responder=responder(replies)), services=services)


async def test_learn_does_not_store_the_claim_it_just_refuted(tmp_path):
    """Attack (the reported case): the fast model restates the lemma claim the session refuted
    at n = 30 as an insight and as a distilled skill, with the variables renamed."""
    ctx = _learn_ctx(tmp_path, "s1", {"InsightBatch": REFUTED_INSIGHTS, "DistilledSkills": REFUTED_SKILLS})
    ctx.bus.put_theory_state(_refuting_session())
    assert (await LearnStage().run(ctx, SPEC)).status == "completed"
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    titles = {i.title for i in mm.list_insights("mab")}
    assert "Tail of the Basel sum" not in titles and "Telescoping" in titles
    assert SkillRegistry(tmp_path / "skills").get("basel-tail-bound") is None
    report = ctx.bus.get("learn_report")
    assert any("Tail of the Basel sum" == t and "not stored" in why for t, why in report["insights_skipped"])


async def test_learn_does_not_store_a_claim_an_earlier_session_refuted(tmp_path):
    """Attack: session B (which refuted nothing) stores, as knowledge, the bound session A refuted."""
    a = _learn_ctx(tmp_path, "A", {"InsightBatch": {"insights": []}, "DistilledSkills": {"skills": []}})
    a.bus.put_theory_state(_refuting_session())
    await LearnStage().run(a, SPEC)
    b = _learn_ctx(tmp_path, "B", {"InsightBatch": REFUTED_INSIGHTS, "DistilledSkills": REFUTED_SKILLS})
    b.bus.put_theory_state(
        TheoryState(
            informal_statement="another",
            status="abandoned",
            failed_attempts=[],
            lemma_dag={"T": LemmaNode(id="T", statement="main", is_root=True, status="failed")},
            counterexamples=[Counterexample(lemma_id="T", assignment={"z": 1}, confirmed=False)],
        )
    )
    await LearnStage().run(b, SPEC)
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    assert "Tail of the Basel sum" not in {i.title for i in mm.list_insights("mab")}
    assert SkillRegistry(tmp_path / "skills").get("basel-tail-bound") is None


async def test_a_lemma_proved_over_a_claim_an_earlier_session_refuted_never_enters_the_graph(tmp_path):
    """Attack: session B "proves" (reviewed) the tail bound session A refuted, renamed to m."""
    a = _learn_ctx(tmp_path, "A", {"InsightBatch": {"insights": []}, "DistilledSkills": {"skills": []}})
    a.bus.put_theory_state(_refuting_session())
    await LearnStage().run(a, SPEC)
    renamed = Claim(variables=[V("m", "natural", low=2)], conclusion="Sum(1/j^2, (j, 2, m)) <= 0.6")
    node = LemmaNode(id="T", statement="The Basel tail is at most 0.6.", is_root=True, claim=renamed, status="proved")
    record = ProofRecord(lemma_id="T", proof="by comparison", verification_level="reviewed", reviewer="other:model")
    b = _learn_ctx(tmp_path, "B", {"InsightBatch": {"insights": []}, "DistilledSkills": {"skills": []}})
    b.bus.put_theory_state(
        TheoryState(informal_statement="tail", lemma_dag={"T": node}, proven_lemmas={"T": record}, status="proved")
    )
    await LearnStage().run(b, SPEC)
    mm = MemoryManager(tmp_path, "check", HashingEmbedder())
    assert mm.graph.find("The Basel tail is at most 0.6.") is None
    assert any("not stored in the knowledge graph" in n for n in b.bus.get("learn_report")["notes"])


# --- a root claim narrower than the statement ----------------------------------------------------

NARROW_PLAN = {
    "formal_statement": "For every real x, x^2 >= x.",
    "lemmas": [
        {
            "id": "T",
            "statement": "For every real x, x^2 >= x.",
            "is_root": True,
            "claim_is_statement": True,
            "claim": {"variables": [{"name": "x"}], "assumptions": ["x >= 1"], "conclusion": "x^2 >= x"},
        }
    ],
    "statement_claim": {"variables": [{"name": "x"}], "conclusion": "x^2 >= x"},
}


async def test_a_root_claim_narrower_than_the_statement_is_recorded_as_narrower(tmp_path):
    """Attack: statement "every real x has x² ≥ x" (false at 1/2) formalized with the root
    claim x ≥ 1 ⇒ x² ≥ x, which every checker proves."""
    script = Script().on("formalizer", None, NARROW_PLAN)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, InputSpec(mode="prove", statement="every real x has x^2 >= x"))
    assert out.status == "completed", out.reason
    scope = ctx.bus.get_theory_state().statement_scope
    assert scope is not None and scope.relation == "narrower"
    assert scope.statement_fails_at_witness and scope.witness
    assert "x ≥ 1" in scope.sentence and "every real x" in scope.sentence and "false at" in scope.sentence


@pytest.mark.parametrize("given", [None, "x^2 >= x", {"conclusion": "y > 0", "variables": [{"name": "x"}]}])
async def test_a_root_claim_without_a_usable_statement_claim_is_not_taken_as_the_statement(tmp_path, given):
    """Attack: the model leaves `statement_claim` out, or writes one that does not parse, so
    nothing can compare the two; the plan itself still goes through."""
    plan = {k: v for k, v in NARROW_PLAN.items() if k != "statement_claim"}
    if given is not None:
        plan["statement_claim"] = given
    script = Script().on("formalizer", None, plan)
    ctx, _, _ = make_ctx(tmp_path, script)
    out = await FormalizeStage().run(ctx, InputSpec(mode="prove", statement="every real x has x^2 >= x"))
    assert out.status == "completed", out.reason
    scope = ctx.bus.get_theory_state().statement_scope
    assert scope is not None and scope.relation == "unknown"
