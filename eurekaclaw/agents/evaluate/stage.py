"""The Evaluate stage: Scientist-Bench scores of the session, saved as eval_report.json."""

from __future__ import annotations

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.evaluate.session import evaluate_bus
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.knowledge_bus.keys import EVAL_REPORT
from eurekaclaw.types.tasks import InputSpec


class EvaluateStage(Stage):
    name = "evaluate"
    needs = ("theory_state", "bibliography", "experiment_result", "paper")
    produces = ("eval_report",)
    rerunnable = True

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        # scoring is cheap and deterministic apart from one model call: always recompute
        session_dir = ctx.session.path if ctx.session is not None else ctx.bus.session_dir
        # Novelty is judged by the review model when one is configured, so the model that
        # proved the result does not grade it; otherwise the judgement is labelled self-judged.
        report = await evaluate_bus(
            ctx.bus, ctx.settings, ctx.reviewer(), session_dir=session_dir, prover=ctx.llm.identity()
        )
        ctx.bus.put(EVAL_REPORT, report)
        scored = ", ".join(f"{d.name} {d.score:.2f}" for d in report.dimensions if d.score is not None)
        return StageOutcome(status="completed", summary=f"total {report.total:.3f} ({scored})")
