"""LearnStage (stage 7): run the ContinualLearningLoop on the finished session.

Uses the orchestrator's services (ctx.services.memory, .skill_registry, .skill_injector)
when present and builds them from the workspace otherwise. Needs a
TheoryState on the bus; without one there is nothing to learn and the stage is skipped.
"""

from __future__ import annotations

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.learn.loop import REPORT_KEY, STEPS, ContinualLearningLoop
from eurekaclaw.agents.learn.services import complete_memory_services
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.types.tasks import InputSpec


class LearnStage(Stage):
    name = "learn"
    needs = ("theory_state", "research_brief", "bibliography", "injected_skills", "tool_traces")
    produces = (REPORT_KEY,)
    # lessons of the whole session; never re-run by a revision (it would store them twice)
    reads_finished_session = True

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        if ctx.bus.get_theory_state() is None:
            return "no theory state: the session proved nothing there is to learn from"
        return None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        state = ctx.bus.get_theory_state()
        if state is None:
            return StageOutcome(status="skipped", reason=self.missing_inputs(ctx, spec) or "")
        memory, registry = complete_memory_services(ctx)
        loop = ContinualLearningLoop(ctx, memory, registry)
        report = await loop.post_run(state)
        if len(report.skipped_steps) == len(STEPS):
            # Everything was learned before an interruption; keep that run's report.
            return StageOutcome(status="completed", summary="already learned from this session")
        ctx.bus.put(REPORT_KEY, report.as_dict())
        ctx.events("learn", summary=report.summary(), degraded=report.degraded)
        if report.degraded:
            return StageOutcome(
                status="partial",
                summary=report.summary(),
                reason="; ".join(report.degraded)[:1000],
            )
        return StageOutcome(status="completed", summary=report.summary())
