"""The seven stages in order and where each one's implementation lives.

A stage whose module is not part of this build is reported as absent (never faked); an
import error *inside* an existing stage module is a bug and propagates.
"""

from __future__ import annotations

import importlib

from eurekaclaw.agents.stage import Stage
from eurekaclaw.types.tasks import STAGE_ORDER

STAGE_CLASSES: dict[str, str] = {
    "survey": "eurekaclaw.agents.survey.stage:SurveyStage",
    "formalize": "eurekaclaw.agents.formalize.stage:FormalizeStage",
    "theory": "eurekaclaw.agents.theory.stage:TheoryStage",
    "experiment": "eurekaclaw.agents.experiment.stage:ExperimentStage",
    "write": "eurekaclaw.agents.writer.stage:WriteStage",
    "evaluate": "eurekaclaw.agents.evaluate.stage:EvaluateStage",
    "learn": "eurekaclaw.agents.learn.stage:LearnStage",
}


def load_stage(name: str) -> Stage | None:
    module_name, _, class_name = STAGE_CLASSES[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return None
        raise
    return getattr(module, class_name)()


def load_stages() -> dict[str, Stage | None]:
    return {name: load_stage(name) for name in STAGE_ORDER}
