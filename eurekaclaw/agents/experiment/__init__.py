"""The Experiment stage: numerical checks of the theorem's bounds (see stage.py)."""

from eurekaclaw.agents.experiment.stage import ExperimentStage

__all__ = ["ExperimentStage"]
