"""The MetaOrchestrator turns an experiment that violates the theorem's bound into `contradicted`,
formalizes again once with the violation as a counterexample, and never ends `proved` while the
violation stands. The stages are small fakes; the subject is the orchestrator's evidence step."""

from __future__ import annotations

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.config import load_settings
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.types.artifacts import (
    BoundCheck,
    ExperimentResult,
    LemmaNode,
    ProofRecord,
    TheoryState,
)
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="UCB1 regret is at most sum ln T / (100 Delta_i)")


class Formalize(Stage):
    name = "formalize"

    def __init__(self) -> None:
        self.runs = 0
        self.saw_counterexamples: list[int] = []

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        old = ctx.bus.get_theory_state()
        self.saw_counterexamples.append(len(old.counterexamples) if old else 0)
        state = TheoryState(
            informal_statement=spec.statement,
            formal_statement=f"formal v{self.runs}",
            lemma_dag={"main": LemmaNode(id="main", statement="bound", is_root=True)},
        )
        if old is not None:  # as the real stage does: what failed stays on record
            state.counterexamples = old.counterexamples
            state.contradiction_replans = old.contradiction_replans
        ctx.bus.put_theory_state(state)
        return StageOutcome(status="completed")


class Theory(Stage):
    name = "theory"

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        state = ctx.bus.get_theory_state()
        state.proven_lemmas = {"main": ProofRecord(lemma_id="main", proof="p", verification_level="reviewed")}
        state.status, state.status_reason = "proved", "all lemmas proven"
        ctx.bus.put_theory_state(state)
        return StageOutcome(status="completed")


class Experiment(Stage):
    name = "experiment"

    def __init__(self, violate: list[bool]) -> None:
        self.violate = violate
        self.runs = 0

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        bad = self.violate[min(self.runs, len(self.violate) - 1)]
        self.runs += 1
        check = BoundCheck(
            name="claimed@ucb1",
            horizon=1000,
            empirical_mean=63.5,
            std_error=0.8,
            theoretical=0.46,
            held=not bad,
            from_theorem=True,
        )
        line = "bound claimed@ucb1 on instance three at T=1000: measured 63.5 ± 0.8, bound 0.46"
        ctx.bus.put_experiment_result(
            ExperimentResult(bound_checks=[check], violations=[line] if bad else [], spec={"checked": {}})
        )
        return StageOutcome(status="completed")


def _orch(formalize: Formalize, experiment: Experiment, **settings) -> MetaOrchestrator:
    stages = {name: None for name in ("survey", "write", "evaluate", "learn")}
    stages.update(formalize=formalize, theory=Theory(), experiment=experiment)
    return MetaOrchestrator(
        load_settings(**settings), backend=ScriptedBackend(responder=lambda r: "ok"), stages=stages, plugins={}
    )


async def test_a_violated_bound_contradicts_a_proved_theorem_after_one_reformalization() -> None:
    formalize, experiment = Formalize(), Experiment([True, True])
    result = await _orch(formalize, experiment).run(SPEC)
    assert result.theory_status == "contradicted"
    assert result.status == "partial"
    assert "violated 1 of the theorem's bound" in result.theory_reason
    assert formalize.runs == 2 and experiment.runs == 2  # one re-formalization, then final
    # the second formalization saw the counterexample of the first contradiction
    assert formalize.saw_counterexamples == [0, 1]


async def test_a_reformalization_that_the_experiment_confirms_can_be_proved() -> None:
    formalize, experiment = Formalize(), Experiment([True, False])
    result = await _orch(formalize, experiment).run(SPEC)
    assert formalize.runs == 2
    assert result.theory_status == "proved"


async def test_no_replan_allowed_means_contradicted_at_once() -> None:
    formalize, experiment = Formalize(), Experiment([True])
    result = await _orch(formalize, experiment, theory_max_replans=0).run(SPEC)
    assert result.theory_status == "contradicted" and formalize.runs == 1 and experiment.runs == 1


async def test_an_experiment_that_holds_changes_nothing() -> None:
    formalize, experiment = Formalize(), Experiment([False])
    result = await _orch(formalize, experiment).run(SPEC)
    assert result.theory_status == "proved" and formalize.runs == 1
