"""Adding a stage is one module plus its registration: the Audit stage below is declared here
(what it needs and produces, and its transition), registered with a copy of the build's registry
the way orchestrator/stages.py registers the built-ins, run by the orchestrator's interpreter,
and planned by resume from its declarations alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.transitions import NEXT, Replan, Transition
from eurekaclaw.config import load_settings
from eurekaclaw.knowledge_bus.keys import ArtifactKey
from eurekaclaw.llm.scripted import ScriptedBackend
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.meta import MetaOrchestrator
from eurekaclaw.orchestrator.stages import REGISTRY
from eurekaclaw.store.files import read_json, read_jsonl
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.artifacts import LemmaNode, ProofRecord, TheoryState
from eurekaclaw.types.tasks import InputSpec

SPEC = InputSpec(mode="prove", statement="For all real x, x^2 >= 0")


# ---- the new stage: one module's worth -------------------------------------------------------
AUDIT_REPORT: ArtifactKey[dict[str, Any]] = ArtifactKey("audit_report")


class AuditStage(Stage):
    """Reads the theory and records an audit; an unfinished proof sends the graph back to Theory."""

    name = "audit"
    needs = ("theory_state",)
    produces = (AUDIT_REPORT,)

    def __init__(self, fail_first: bool = False) -> None:
        self.runs = 0
        self.fail_first = fail_first

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        return None if ctx.bus.get_theory_state() is not None else "no theory to audit"

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        if self.fail_first and self.runs == 1:
            return StageOutcome(status="failed", reason="auditor unavailable", retryable=False)
        state = ctx.bus.get_theory_state()
        assert state is not None
        ctx.bus.put(AUDIT_REPORT, {"status": state.status, "runs": self.runs})
        return StageOutcome(status="completed", summary=f"audited a {state.status} theorem")

    @classmethod
    def transition(cls, ctx: AgentContext, spec: InputSpec) -> Transition:
        state = ctx.bus.get_theory_state()
        if state is not None and state.status != "proved":
            return Replan("theory", "re-run: the audit found the proof unfinished")
        return NEXT


def graph_with_audit() -> StageGraph:
    registry = REGISTRY.copy()
    registry.register(AuditStage, after="theory")  # the registration
    return registry.graph()


# ---- the rest of the pipeline: small fakes ---------------------------------------------------
class Theory(Stage):
    """Leaves the proof unfinished before its `proves_on`-th run, and proves it then."""

    name = "theory"

    def __init__(self, proves_on: int = 2) -> None:
        self.runs = 0
        self.proves_on = proves_on

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        self.runs += 1
        state = ctx.bus.get_theory_state() or TheoryState(
            informal_statement=spec.statement, lemma_dag={"main": LemmaNode(id="main", statement="s", is_root=True)}
        )
        if self.runs < self.proves_on:
            state.status = "in_progress"
        else:
            state.proven_lemmas = {"main": ProofRecord(lemma_id="main", proof="p", verification_level="reviewed")}
            state.status = "proved"
        ctx.bus.put_theory_state(state)
        return StageOutcome(status="completed")


def orchestrator(theory: Theory, audit: AuditStage) -> MetaOrchestrator:
    graph = graph_with_audit()
    stages: dict[str, Stage | None] = {name: None for name in graph.names}
    stages.update(theory=theory, audit=audit)
    return MetaOrchestrator(
        load_settings(), backend=ScriptedBackend(responder=lambda r: "ok"), stages=stages, plugins={}, graph=graph
    )


async def test_the_interpreter_runs_a_registered_stage_and_follows_its_transition() -> None:
    theory, audit = Theory(), AuditStage()
    result = await orchestrator(theory, audit).run(SPEC)
    names = [r.name for r in result.stages]
    assert names[names.index("theory") + 1] == "audit"  # where it was registered
    assert next(r for r in result.stages if r.name == "audit").status == "completed"
    # its Replan("theory") sent the run back once: theory and audit ran twice, then went on
    assert theory.runs == 2 and audit.runs == 2
    assert result.theory_status == "proved"
    session = Path(result.session_dir)
    assert read_json(session / "bus_extra.json")["audit_report"] == {"status": "proved", "runs": 2}
    stage_events = [(e["name"], e["status"]) for e in read_jsonl(session / "events.jsonl") if e["kind"] == "stage"]
    assert stage_events.count(("audit", "completed")) == 2
    assert ("theory", "pending") not in stage_events  # a replan re-opens stages, it does not run them
    pipeline = read_json(session / "pipeline.json")
    assert [s["name"] for s in pipeline["stages"]] == names


async def test_resume_gives_a_failed_new_stage_a_fresh_chance() -> None:
    theory, audit = Theory(proves_on=1), AuditStage(fail_first=True)
    first = await orchestrator(theory, audit).run(SPEC)
    assert next(r for r in first.stages if r.name == "audit").status == "failed"
    session = SessionDir(Path(first.session_dir))
    resumed = await orchestrator(theory, audit).resume(session)
    audit_rec = next(r for r in resumed.stages if r.name == "audit")
    assert audit_rec.status == "completed" and audit.runs == 2


async def test_a_damaged_theory_reruns_the_new_stage_as_one_downstream_of_theory() -> None:
    theory, audit = Theory(), AuditStage()
    first = await orchestrator(theory, audit).run(SPEC)
    assert audit.runs == 2
    session = SessionDir(Path(first.session_dir))
    session.file("theory_state.json").write_text('{"informal_statement": ')  # torn
    resumed = await orchestrator(theory, audit).resume(session)
    # Theory is the first producer of theory_state that this build has; Audit needs it
    damaged = [e for e in read_jsonl(session.file("events.jsonl")) if e["kind"] == "damaged_state"]
    assert damaged and damaged[-1]["rerun_from"] == "theory"
    assert theory.runs == 3 and audit.runs == 3
    assert next(r for r in resumed.stages if r.name == "audit").status == "completed"
