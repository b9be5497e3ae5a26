"""The seven stages in order and where each one's implementation lives."""

from __future__ import annotations

from eurekaclaw.agents.evaluate.stage import EvaluateStage
from eurekaclaw.agents.experiment.stage import ExperimentStage
from eurekaclaw.agents.formalize.stage import FormalizeStage
from eurekaclaw.agents.learn.stage import LearnStage
from eurekaclaw.agents.stage import Stage
from eurekaclaw.agents.survey.stage import SurveyStage
from eurekaclaw.agents.theory.stage import TheoryStage
from eurekaclaw.agents.writer.stage import WriteStage
from eurekaclaw.types.tasks import STAGE_ORDER

STAGE_CLASSES: dict[str, type[Stage]] = {
    "survey": SurveyStage,
    "formalize": FormalizeStage,
    "theory": TheoryStage,
    "experiment": ExperimentStage,
    "write": WriteStage,
    "evaluate": EvaluateStage,
    "learn": LearnStage,
}


def load_stage(name: str) -> Stage:
    return STAGE_CLASSES[name]()


def load_stages() -> dict[str, Stage | None]:
    # The orchestrator's stage map allows `None` (a stage without an implementation, reported
    # as absent and never faked: callers may pass their own map); this build has all seven.
    return {name: load_stage(name) for name in STAGE_ORDER}
