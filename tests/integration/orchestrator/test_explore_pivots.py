"""`explore` pivots: a direction whose theory ends refuted, abandoned or contradicted hands over
to the next scored direction (at most max_pivots times), each a versioned sub-run of the same
session, and the paper says which direction it reports and why the others were dropped. The
stages are small fakes; the subject is the orchestrator and the pivot record."""

from __future__ import annotations

from pathlib import Path

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.formalize.stage import input_statement
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.writer.directions import direction_report
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.orchestrator.pivots import pivot_if_failed
from eurekaclaw.store.files import read_json
from eurekaclaw.types.artifacts import (
    BoundCheck,
    DroppedDirection,
    ExperimentResult,
    LemmaNode,
    ProofRecord,
    ResearchBrief,
    ResearchDirection,
    TheoryState,
)
from eurekaclaw.types.tasks import InputSpec, PipelineState

DIRECTIONS = [
    ResearchDirection(title="A", statement="statement A", composite=0.9),
    ResearchDirection(title="B", statement="statement B", composite=0.8),
    ResearchDirection(title="C", statement="statement C", composite=0.7),
    ResearchDirection(title="D", statement="statement D", composite=0.6),
]


class Survey(Stage):
    name = "survey"
    produces = ("research_brief",)

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        ctx.bus.put_research_brief(ResearchBrief(directions=list(DIRECTIONS), selected_direction=DIRECTIONS[0]))
        return StageOutcome(status="completed")


class Formalize(Stage):
    name = "formalize"
    produces = ("theory_state",)

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.saw_old_theory: list[bool] = []

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        return input_statement(ctx, spec)[1] or None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        statement, _ = input_statement(ctx, spec)
        self.statements.append(statement)
        self.saw_old_theory.append(ctx.bus.get_theory_state() is not None)
        ctx.bus.put_theory_state(
            TheoryState(
                informal_statement=statement,
                formal_statement=f"formal {statement}",
                lemma_dag={"main": LemmaNode(id="main", statement=statement, is_root=True)},
            )
        )
        return StageOutcome(status="completed")


class Theory(Stage):
    """Ends each direction as `outcomes` says (by title); anything else is proved."""

    name = "theory"

    def __init__(self, outcomes: dict[str, str]) -> None:
        self.outcomes = outcomes

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        state = ctx.bus.get_theory_state()
        title = state.informal_statement.split()[-1]
        status = self.outcomes.get(title, "proved")
        if status == "contradicted":
            status = "proved"  # the experiment will contradict it
        if status == "proved":
            state.proven_lemmas = {"main": ProofRecord(lemma_id="main", proof="p", verification_level="reviewed")}
        state.status, state.status_reason = status, f"lemma main of {title}: {status} by the fake theory stage"
        ctx.bus.put_theory_state(state)
        return StageOutcome(status="completed")


class Experiment(Stage):
    name = "experiment"
    produces = ("experiment_result",)

    def __init__(self, violated: set[str]) -> None:
        self.violated = violated
        self.ran_for: list[str] = []

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        title = ctx.bus.get_theory_state().informal_statement.split()[-1]
        self.ran_for.append(title)
        bad = title in self.violated
        check = BoundCheck(
            name=f"bound {title}",
            horizon=100,
            empirical_mean=5.0,
            std_error=0.1,
            theoretical=1.0,
            held=not bad,
            from_theorem=True,
        )
        ctx.bus.put_experiment_result(
            ExperimentResult(bound_checks=[check], violations=[f"bound of {title} violated"] if bad else [])
        )
        return StageOutcome(status="completed")


class Write(Stage):
    name = "write"

    def __init__(self) -> None:
        self.saw: list[tuple[str, str, int]] = []

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        theory = ctx.bus.get_theory_state()
        brief = ctx.bus.get_research_brief()
        self.saw.append((theory.informal_statement, theory.status, len(brief.dropped_directions)))
        return StageOutcome(status="completed")


def _orch(theory: Theory, experiment: Experiment, formalize: Formalize, write: Write, **settings) -> MetaOrchestrator:
    stages = {
        "survey": Survey(),
        "formalize": formalize,
        "theory": theory,
        "experiment": experiment,
        "write": write,
        "evaluate": None,
        "learn": None,
    }
    return MetaOrchestrator(
        load_settings(theory_max_replans=0, **settings),
        backend=ScriptedBackend(responder=lambda r: "ok"),
        stages=stages,
        plugins={},
    )


async def test_failed_directions_hand_over_to_the_next_and_the_paper_says_why() -> None:
    formalize, write = Formalize(), Write()
    experiment = Experiment(violated={"B"})
    orch = _orch(Theory({"A": "refuted", "B": "contradicted"}), experiment, formalize, write)
    result = await orch.run(InputSpec(mode="explore", statement="bandits"))

    assert result.theory_status == "proved"
    assert formalize.statements == ["statement A", "statement B", "statement C"]
    # a fresh formalization each time: the dropped direction's theory is not carried over
    assert formalize.saw_old_theory == [False, False, False]
    assert experiment.ran_for == ["B", "C"]  # a refuted theory needs no experiment
    assert write.saw == [("statement C", "proved", 2)]  # one paper, for the final direction
    assert all(s.status == "completed" for s in result.stages if s.name in ("formalize", "theory", "experiment"))

    session = Path(result.session_dir)
    brief = ResearchBrief.model_validate(read_json(session / "research_brief.json"))
    assert brief.selected_direction.title == "C"
    assert [(d.version, d.title, d.outcome) for d in brief.dropped_directions] == [
        (1, "A", "refuted"),
        (2, "B", "contradicted"),
    ]
    assert "refuted by the fake theory stage" in brief.dropped_directions[0].reason
    assert "bound of B violated" in brief.dropped_directions[1].reason
    # each direction is a versioned sub-run: its files are kept
    v1 = read_json(session / "directions" / "v1" / "theory_state.json")
    assert v1["informal_statement"] == "statement A" and v1["status"] == "refuted"
    assert read_json(session / "directions" / "v2" / "experiment_result.json")["violations"] == ["bound of B violated"]
    events = [
        e
        for e in map(__import__("json").loads, (session / "events.jsonl").read_text().splitlines())
        if e.get("kind") == "pivot"
    ]
    assert [e["dropped"] for e in events] == ["A", "B"]

    report = direction_report(brief)
    assert report is not None and "direction C" in report.final and "third tried" in report.final
    assert "A (composite score 0.90): the theory ended refuted" in report.dropped[0]
    assert "B (composite score 0.80): the theory ended contradicted" in report.dropped[1]


async def test_pivots_stop_at_max_pivots_and_the_last_direction_is_reported_as_it_ended() -> None:
    formalize, write = Formalize(), Write()
    orch = _orch(Theory({"A": "refuted", "B": "abandoned"}), Experiment(set()), formalize, write)
    result = await orch.run(InputSpec(mode="explore", statement="bandits", max_pivots=1))
    assert formalize.statements == ["statement A", "statement B"]
    assert result.theory_status == "abandoned" and result.status == "partial"
    brief = ResearchBrief.model_validate(read_json(Path(result.session_dir) / "research_brief.json"))
    assert [d.title for d in brief.dropped_directions] == ["A"]
    assert "no pivot: the limit of 1 pivot(s) is reached" in brief.notes
    assert write.saw == [("statement B", "abandoned", 1)]


async def test_zero_pivots_and_other_modes_never_pivot() -> None:
    formalize = Formalize()
    result = await _orch(Theory({"A": "refuted"}), Experiment(set()), formalize, Write()).run(
        InputSpec(mode="explore", statement="bandits", max_pivots=0)
    )
    assert formalize.statements == ["statement A"] and result.theory_status == "refuted"

    formalize = Formalize()
    stages_theory = Theory({"A": "refuted"})
    result = await _orch(stages_theory, Experiment(set()), formalize, Write()).run(
        InputSpec(mode="from-papers", statement="", paper_ids=["2101.00001"])
    )
    assert formalize.statements == ["statement A"] and result.theory_status == "refuted"


async def test_running_out_of_directions_ends_with_the_last_one() -> None:
    formalize = Formalize()
    theory = Theory({t: "refuted" for t in "ABCD"})
    result = await _orch(theory, Experiment(set()), formalize, Write()).run(
        InputSpec(mode="explore", statement="bandits", max_pivots=10)
    )
    assert formalize.statements == [f"statement {t}" for t in "ABCD"]
    assert result.theory_status == "refuted"
    brief = ResearchBrief.model_validate(read_json(Path(result.session_dir) / "research_brief.json"))
    assert len(brief.dropped_directions) == 3 and "no pivot: no scored direction is left to try" in brief.notes


def test_a_pivot_interrupted_after_its_decision_is_finished_once(tmp_path: Path) -> None:
    """The brief (decision) was written, the rest was not: the next check finishes the pivot
    without recording the direction twice; afterwards nothing pivots again."""
    bus = KnowledgeBus("s", tmp_path)
    dropped = DroppedDirection(
        version=1, title="A", statement="statement A", outcome="refuted", archive="directions/v1"
    )
    bus.put_research_brief(
        ResearchBrief(directions=list(DIRECTIONS), selected_direction=DIRECTIONS[1], dropped_directions=[dropped])
    )
    bus.put_theory_state(TheoryState(informal_statement="statement A", status="refuted"))
    bus.put_experiment_result(ExperimentResult())
    pipeline = PipelineState()
    for rec in pipeline.stages:
        rec.status = "completed" if rec.name in ("survey", "formalize", "theory", "experiment") else "pending"
    spec = InputSpec(mode="explore", statement="bandits")
    again = pivot_if_failed(bus, tmp_path, pipeline, spec)
    assert again is not None and again.title == "A"
    assert len(bus.get_research_brief().dropped_directions) == 1
    assert bus.get_theory_state() is None and not (tmp_path / "theory_state.json").exists()
    assert bus.get_experiment_result() is None and not (tmp_path / "experiment_result.json").exists()
    assert [pipeline.record(n).status for n in ("formalize", "theory", "experiment")] == ["pending"] * 3
    assert pivot_if_failed(bus, tmp_path, pipeline, spec) is None
