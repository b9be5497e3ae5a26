"""The stage loop: a small interpreter of the declared stage graph (graph.py).

From where the pipeline stands, it visits the stages in their declared order. At a pivot point an
`explore` direction that ended hands over to the next one (Pivot); a stage that already ran to an
end is passed; a gate may stop the run (Stop); otherwise the stage runs (StageRunner) and its
class's transition says where to go next: on (Next), or back to a named stage (Replan).
"""

from __future__ import annotations

from collections.abc import Callable

from eurekaclaw.agents.transitions import NEXT, Next, Pivot, Replan, Stop, Transition
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.pivots import direction_stages, pivot
from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.orchestrator.session_run import SessionRun
from eurekaclaw.orchestrator.stage_runner import PauseRequested, StageRunner
from eurekaclaw.types.tasks import StageRecord

# A stage in one of these states is passed over: it ran to an end, or has no implementation.
PASSED = ("completed", "skipped", "absent", "failed")
# May the run go on to the named stage, after the previous one (None at the start)?
Gate = Callable[[str, StageRecord | None], bool]


class GraphInterpreter:
    def __init__(self, graph: StageGraph, runner: StageRunner, ui: RunUI, gate: Gate) -> None:
        self.graph = graph
        self.runner = runner
        self.ui = ui
        self.gate = gate

    async def run(self, run: SessionRun) -> None:
        """Walk the graph to its end; PauseRequested when a gate or the user stops the run."""
        previous: StageRecord | None = None
        name = self.graph.first
        while name is not None:
            transition, previous = await self._visit(run, name, previous)
            name = self._follow(run, name, transition)

    async def _visit(
        self, run: SessionRun, name: str, previous: StageRecord | None
    ) -> tuple[Transition, StageRecord | None]:
        """One stage: the transition it leads to, and the record the next gate looks back at."""
        rec = run.pipeline.record(name)
        node = self.graph.node(name)
        if node.pivot_point and rec.status != "completed":
            handed_over = pivot(run, self.graph)
            if handed_over is not None:
                return handed_over, previous
        if rec.status in PASSED:
            return NEXT, rec
        if not self.gate(name, previous):
            return Stop("paused at a checkpoint"), previous
        await self.runner.run(run, rec, run.resume and rec.status in ("interrupted", "running"))
        return node.stage_class.transition(run.ctx, run.spec), rec

    def _follow(self, run: SessionRun, name: str, transition: Transition) -> str | None:
        if isinstance(transition, Next):
            return self.graph.successor(name)
        if isinstance(transition, Replan):
            self._reopen(run, self.graph.span(transition.target, name), transition.reason)
            return transition.target
        if isinstance(transition, Pivot):
            # pivots.pivot_if_failed already re-opened these stages, in its crash-safe order
            return direction_stages(self.graph)[0]
        assert isinstance(transition, Stop)
        raise PauseRequested(transition.reason)

    def _reopen(self, run: SessionRun, names: tuple[str, ...], reason: str) -> None:
        for stage in names:
            rec = run.pipeline.record(stage)
            if rec.status != "absent":  # a stage with no implementation stays reported as such
                rec.status, rec.reason, rec.attempts = "pending", reason, 0
        run.save_pipeline()
        self.ui.set_pipeline(run.pipeline)
