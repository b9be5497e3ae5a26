"""The interpreter walks a declared graph by the transitions its stages return: Next goes on,
Replan re-opens the named span (a stage with no implementation stays absent) and goes back,
Stop pauses before the stage runs. A toy graph and a recording runner keep the subject alone."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.transitions import NEXT, Replan, Transition
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.orchestrator.graph import StageGraph, StageRegistry
from eurekaclaw.orchestrator.interpreter import GraphInterpreter
from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.orchestrator.session_run import SessionRun
from eurekaclaw.orchestrator.stage_runner import PauseRequested
from eurekaclaw.types.tasks import InputSpec, StageRecord


class _Toy(Stage):
    async def run(self, ctx: Any, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        return StageOutcome(status="completed")


class Gather(_Toy):
    name = "gather"
    produces = ("facts",)


class Check(_Toy):
    name = "check"
    needs = ("facts",)
    replans: ClassVar[int] = 1

    @classmethod
    def transition(cls, ctx: Any, spec: InputSpec) -> Transition:
        if cls.replans > 0:
            cls.replans -= 1
            return Replan("prepare", "re-run: the check asked again")
        return NEXT


class Prepare(_Toy):
    name = "prepare"


class Report(_Toy):
    name = "report"
    needs = ("facts",)


class RecordingRunner:
    def __init__(self) -> None:
        self.ran: list[str] = []

    async def run(self, run: SessionRun, rec: StageRecord, resume: bool) -> None:
        self.ran.append(rec.name)
        rec.status = "completed"


def _setup(tmp_path: Path, impls: dict[str, Stage | None]) -> tuple[StageGraph, SessionRun]:
    graph = StageRegistry([Prepare, Gather, Check, Report]).graph()
    bus = KnowledgeBus("toy", tmp_path)
    ctx: Any = SimpleNamespace(bus=bus, settings=None)
    run = SessionRun(
        ctx=ctx,
        session=SimpleNamespace(path=tmp_path),  # type: ignore[arg-type]
        pipeline=graph.new_pipeline(impls),
        spec=InputSpec(mode="prove", statement="s"),
        events=lambda kind, **data: None,
    )
    return graph, run


async def test_replan_reopens_its_span_and_walks_it_again(tmp_path: Path) -> None:
    Check.replans = 1
    graph, run = _setup(tmp_path, {"prepare": None, "gather": Gather(), "check": Check(), "report": Report()})
    runner = RecordingRunner()
    await GraphInterpreter(graph, runner, RunUI(live=False, quiet=True), lambda n, p: True).run(run)  # type: ignore[arg-type]
    assert runner.ran == ["gather", "check", "gather", "check", "report"]
    assert run.pipeline.record("prepare").status == "absent"  # re-opened span, but no implementation
    assert run.bus.get_pipeline() == run.pipeline  # the re-opening was saved


async def test_a_declined_gate_stops_before_the_stage_runs(tmp_path: Path) -> None:
    Check.replans = 0
    graph, run = _setup(tmp_path, {"prepare": Prepare(), "gather": Gather(), "check": Check(), "report": Report()})
    runner = RecordingRunner()
    seen: list[tuple[str, str | None]] = []

    def gate(name: str, previous: StageRecord | None) -> bool:
        seen.append((name, previous.name if previous else None))
        return name != "check"

    with pytest.raises(PauseRequested):
        await GraphInterpreter(graph, runner, RunUI(live=False, quiet=True), gate).run(run)  # type: ignore[arg-type]
    assert runner.ran == ["prepare", "gather"]
    assert seen == [("prepare", None), ("gather", "prepare"), ("check", "gather")]
    assert run.pipeline.record("check").status == "pending"
