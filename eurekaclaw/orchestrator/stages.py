"""The stages of this build, registered in pipeline order, and the graph built from them.

To add a stage: one module with a Stage subclass (agents/stage.py says what it declares) and
one `REGISTRY.register(TheStage, after="...")` line here.
"""

from __future__ import annotations

from eurekaclaw.agents.evaluate.stage import EvaluateStage
from eurekaclaw.agents.experiment.stage import ExperimentStage
from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.learn.stage import LearnStage
from eurekaclaw.agents.stage import Stage
from eurekaclaw.agents.survey.stage import SurveyStage
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.agents.writer.stage import WriteStage
from eurekaclaw.orchestrator.graph import StageGraph, StageRegistry

REGISTRY = StageRegistry()
REGISTRY.register(SurveyStage)
REGISTRY.register(FormalizeStage)
REGISTRY.register(TheoryStage)
REGISTRY.register(ExperimentStage)
REGISTRY.register(WriteStage)
REGISTRY.register(EvaluateStage)
REGISTRY.register(LearnStage)

STAGE_GRAPH = REGISTRY.graph()


def load_stage(name: str, graph: StageGraph = STAGE_GRAPH) -> Stage:
    return graph.node(name).stage_class()


def load_stages(graph: StageGraph = STAGE_GRAPH) -> dict[str, Stage | None]:
    # The orchestrator's stage map allows `None` (a stage without an implementation, reported
    # as absent and never faked: callers may pass their own map); this build has every stage.
    return {name: load_stage(name, graph) for name in graph.names}
