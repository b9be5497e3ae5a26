"""The lists the orchestrator used to keep by hand are now derived from the stages'
declarations; these tables pin them to the values they had (pivots, re-runs, revisions, resume,
downstream refresh), so a declaration that changes one of them fails here first."""

from __future__ import annotations

import pytest

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.pivots import ARCHIVED_FILES, PIVOT_POINTS, RERUN
from eurekaclaw.orchestrator.rerun import RERUNNABLE, after_paper
from eurekaclaw.orchestrator.stages import REGISTRY, STAGE_GRAPH, load_stages
from eurekaclaw.review.restage import AFTER
from eurekaclaw.types.tasks import STAGE_ORDER, InputSpec, PipelineState, StageRecord, StageStatus


def test_the_built_in_graph_is_the_seven_stages_in_pipeline_order() -> None:
    assert STAGE_GRAPH.names == STAGE_ORDER
    assert [type(s).__name__ for s in load_stages().values() if s is not None] == [
        "SurveyStage",
        "FormalizeStage",
        "TheoryStage",
        "ExperimentStage",
        "WriteStage",
        "EvaluateStage",
        "LearnStage",
    ]


@pytest.mark.parametrize(
    ("derived", "expected"),
    [
        (PIVOT_POINTS, ("experiment", "write")),
        (RERUN, ("formalize", "theory", "experiment")),
        (RERUNNABLE, ("theory", "experiment", "write", "evaluate")),
        (AFTER, ("evaluate",)),
        (after_paper(), ("evaluate",)),
        (ARCHIVED_FILES, ("theory_state.json", "experiment_result.json")),
    ],
    ids=["pivot points", "pivot re-run", "revision re-runnable", "revision after", "after paper", "archived"],
)
def test_derived_lists_equal_the_values_they_replace(derived: tuple[str, ...], expected: tuple[str, ...]) -> None:
    assert tuple(derived) == expected


@pytest.mark.parametrize(
    ("stage", "downstream"),
    [
        ("survey", ("formalize", "theory", "experiment", "write", "evaluate", "learn")),
        ("formalize", ("theory", "experiment", "write", "evaluate", "learn")),
        ("theory", ("experiment", "write", "evaluate", "learn")),
        ("experiment", ("write", "evaluate", "learn")),
        ("write", ("evaluate", "learn")),
        ("evaluate", ("learn",)),
        ("learn", ()),
    ],
)
def test_downstream_of_each_stage_is_every_later_stage(stage: str, downstream: tuple[str, ...]) -> None:
    # the refresh rule the pipeline had: whatever ran after a stage that runs again is stale
    assert STAGE_GRAPH.downstream(stage) == downstream


@pytest.mark.parametrize(
    ("keys", "producers"),
    [
        (["theory_state"], ("formalize", "theory")),
        (["experiment_result"], ("experiment",)),
        (["paper"], ("write",)),
        (["research_brief", "bibliography"], ("survey",)),
        (["eval_report"], ("evaluate",)),
        (["input_spec"], ()),
    ],
)
def test_producers_of_an_artifact(keys: list[str], producers: tuple[str, ...]) -> None:
    assert STAGE_GRAPH.producers(keys) == producers


def test_a_replan_spans_from_its_target_to_the_stage_that_asked() -> None:
    assert STAGE_GRAPH.span("formalize", "experiment") == ("formalize", "theory", "experiment")
    with pytest.raises(ValueError):
        STAGE_GRAPH.span("experiment", "formalize")


def test_refresh_resets_only_finished_downstream_stages() -> None:
    pipeline = PipelineState()
    status: dict[str, StageStatus] = {
        "survey": "completed",
        "theory": "completed",
        "write": "failed",
        "evaluate": "absent",
        "learn": "skipped",
    }
    for rec in pipeline.stages:
        rec.status = status.get(rec.name, "pending")
    assert STAGE_GRAPH.refresh_downstream(pipeline, "formalize") == ["theory", "write", "learn"]
    by_name = {r.name: r for r in pipeline.stages}
    assert by_name["survey"].status == "completed" and by_name["evaluate"].status == "absent"
    assert by_name["theory"].reason == "re-run: formalize ran again, so its output changed"


class _Late(Stage):
    name = "late"
    needs = ("paper",)

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        return StageOutcome(status="completed")


def test_registering_places_a_stage_and_refuses_a_second_with_its_name() -> None:
    registry = REGISTRY.copy()
    registry.register(_Late, after="write")
    graph = registry.graph()
    assert graph.names == ("survey", "formalize", "theory", "experiment", "write", "late", "evaluate", "learn")
    assert graph.downstream("write") == ("late", "evaluate", "learn")
    assert STAGE_GRAPH.names == STAGE_ORDER  # the build's registry is untouched
    with pytest.raises(ValueError, match="already registered"):
        registry.register(_Late)
    with pytest.raises(ValueError, match="twice"):
        StageGraph([*graph, graph.node("late")])


def test_an_old_pipeline_gets_a_record_for_a_stage_registered_since() -> None:
    registry = REGISTRY.copy()
    registry.register(_Late, after="write")
    graph = registry.graph()
    pipeline = PipelineState()
    pipeline.stages[0].status = "completed"
    impls = {**load_stages(), "late": _Late()}
    assert graph.complete(pipeline, impls) == ["late"]
    assert [r.name for r in pipeline.stages] == list(graph.names)
    assert pipeline.record("late") == StageRecord(name="late")
    assert pipeline.record("survey").status == "completed"
    assert graph.complete(pipeline, impls) == []
    # without an implementation the new stage is reported absent, as any other
    bare = PipelineState()
    graph.complete(bare, load_stages())
    assert bare.record("late").status == "absent"
