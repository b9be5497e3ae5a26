"""Stage 6, Evaluate: Scientist-Bench scores of a session (also `eurekaclaw eval-session`)."""

from eurekaclaw.agents.evaluate.session import evaluate_bus, evaluate_session, render_eval_table
from eurekaclaw.agents.evaluate.stage import EvaluateStage

__all__ = ["EvaluateStage", "evaluate_bus", "evaluate_session", "render_eval_table"]
