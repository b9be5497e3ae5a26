"""The Experiment stage: numerical checks of the theorem's bounds (see stage.py), and the
violated theorem bounds as evidence for the orchestrator (see violations.py)."""

from eurekaclaw.agents.experiment.stage import ExperimentStage
from eurekaclaw.agents.experiment.violations import worst_violation

__all__ = ["ExperimentStage", "worst_violation"]
