"""Re-run chosen stages of a finished session with the orchestrator's own stage code.

`review --revise` uses this to redo theory (for named lemmas or the whole proof), the experiment,
the writer and the evaluation. Each stage is the one `run`/`resume` runs (orchestrator/stages.py),
run by the orchestrator's StageRunner, so it gets the same retries (STAGE_MAX_RETRIES) and pause
handling as in a session; this module adds only what a partial re-run needs: which lemmas go back
to pending, a prose cache that no longer describes the records, and the experiment's evidence
applied again (without a re-plan, a revision never re-formalizes). The caller owns the bus and
the session folder: they should be a copy it can throw away.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.experiment.evidence import apply_experiment_evidence
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.writer.stage import PROSE_CACHE_KEY
from eurekaclaw.errors import StageFailedError
from eurekaclaw.knowledge_bus.keys import PAPER
from eurekaclaw.llm.context import current_stage
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.progress import RunUI
from eurekaclaw.orchestrator.session_run import SessionRun
from eurekaclaw.orchestrator.stage_runner import PauseRequested, StageRunner
from eurekaclaw.orchestrator.stages import STAGE_GRAPH, load_stage
from eurekaclaw.types.artifacts import TheoryState
from eurekaclaw.types.tasks import InputSpec, PipelineState, StageRecord

log = logging.getLogger(__name__)

# The stages that declare themselves re-runnable (agents/stage.py), in pipeline order.
RERUNNABLE = STAGE_GRAPH.rerunnable


def after_paper(graph: StageGraph = STAGE_GRAPH) -> tuple[str, ...]:
    """What a revision runs once its paper is written again: the re-runnable stages downstream
    of the paper's producer (the evaluation; Learn is not re-runnable)."""
    return tuple(name for writer in graph.producers([PAPER]) for name in graph.rerunnable_after(writer))


class RerunFailed(StageFailedError):
    """A re-run stage ended failed (or partial where the result would be unusable)."""


@dataclass
class StageRun:
    name: str
    status: str
    summary: str = ""

    def as_json(self) -> dict[str, str]:
        return {"stage": self.name, "status": self.status, "summary": self.summary}


def reopen_lemmas(state: TheoryState, lemma_ids: list[str]) -> None:
    """The named lemmas are proved again from scratch (their earlier record and failed attempts
    go: the caller keeps the old state), and the theorem is concluded again; every other lemma
    keeps its record, since its statement, and so every proof citing it, is unchanged."""
    for lid in lemma_ids:
        state.proven_lemmas.pop(lid, None)
        if lid in state.lemma_dag:
            state.lemma_dag[lid].status = "pending"
    state.failed_attempts = [f for f in state.failed_attempts if f.lemma_id not in lemma_ids]
    state.assembled_proof = None
    state.consistency_check = None
    state.contradictions = []
    state.status, state.status_reason = "in_progress", "re-run for a revision"


def _dedupe_counterexamples(ctx: AgentContext) -> None:
    """Evidence applied again to an unchanged experiment must not list its violation twice."""
    state = ctx.bus.get_theory_state()
    if state is None:
        return
    seen: set[tuple[str, str, str]] = set()
    kept = []
    for c in state.counterexamples:
        key = (c.lemma_id, c.description, c.checker)
        if key not in seen:
            seen.add(key)
            kept.append(c)
    if len(kept) != len(state.counterexamples):
        state.counterexamples = kept
        ctx.bus.put_theory_state(state)


class _Attributed(Stage):
    """A stage whose model calls are booked to another stage name (a review's re-run is review
    spending). StageRunner sets the stage's own name first; this runs inside its task."""

    def __init__(self, inner: Stage, attribute_to: str) -> None:
        self.inner, self.attribute_to = inner, attribute_to
        self.name = inner.name
        self.produces = inner.produces

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        return self.inner.missing_inputs(ctx, spec)

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        token = current_stage.set(self.attribute_to)
        try:
            return await self.inner.run(ctx, spec, resume=resume)
        finally:
            current_stage.reset(token)


async def _run_one(
    ctx: AgentContext, spec: InputSpec, stage: Stage, *, resume: bool, attribute_to: str | None
) -> StageRun:
    """The stage through StageRunner (attempts, retries, the pause watch) on the caller's copy.
    Budget, authentication and storage errors propagate; any other failure is RerunFailed."""
    if ctx.session is None:
        raise RerunFailed(f"the {stage.name} stage needs a session folder to re-run in")
    missing = stage.missing_inputs(ctx, spec)
    if missing:  # a revision that cannot run a stage it needs is not a revision
        raise RerunFailed(f"the {stage.name} stage could not run: {missing}")
    runnable = _Attributed(stage, attribute_to) if attribute_to else stage
    runner = StageRunner(RunUI(live=False, quiet=True), {stage.name: runnable})
    pipeline = ctx.bus.get_pipeline() or PipelineState()
    run = SessionRun(ctx=ctx, session=ctx.session, pipeline=pipeline, spec=spec, events=ctx.events)
    rec = pipeline.record(stage.name)
    rec.status, rec.reason, rec.attempts, rec.started_at, rec.finished_at = "pending", "", 0, None, None
    try:
        await runner.run(run, rec, resume)
    except PauseRequested:
        raise RerunFailed(f"the {stage.name} stage was stopped before it finished") from None
    if _failed(rec):
        raise RerunFailed(f"the {stage.name} stage failed: {rec.reason or 'no reason given'}")
    status = "partial" if rec.reason.startswith("partial") else rec.status
    return StageRun(stage.name, status, rec.reason.removeprefix("partial: ").removeprefix("partial"))


async def rerun_stages(
    ctx: AgentContext,
    spec: InputSpec,
    stages: list[str],
    *,
    lemmas: list[str] | None = None,
    impls: dict[str, Stage] | None = None,
    attribute_to: str | None = None,
) -> list[StageRun]:
    """Run `stages` (a subset of theory, experiment, write, evaluate) in pipeline order on ctx.bus.
    Theory with `lemmas` re-proves those lemmas and concludes again; without, it starts over
    from the formalized DAG, as a fresh Theory stage does. `attribute_to` books the model calls
    to that stage in the usage ledger (a review's re-run is review spending) instead of each
    stage's own name."""
    unknown = [s for s in stages if s not in RERUNNABLE]
    if unknown:
        raise ValueError(f"not re-runnable: {unknown}")
    runs: list[StageRun] = []
    for name in (s for s in STAGE_GRAPH.names if s in stages):
        stage = (impls or {}).get(name) or load_stage(name)
        resume = False
        if name == "theory" and lemmas:
            state = ctx.bus.get_theory_state()
            if state is None:
                raise RerunFailed("no theory state to re-run")
            reopen_lemmas(state, lemmas)
            ctx.bus.put_theory_state(state)
            resume = True  # continue from the reopened state instead of starting over
        if name == "write":
            ctx.bus.put(PROSE_CACHE_KEY, {})  # the cached prose described the old records
        runs.append(await _run_one(ctx, spec, stage, resume=resume, attribute_to=attribute_to))
        if name == "experiment" or (name == "theory" and "experiment" not in stages):
            # an experiment that violated the theorem's bound still blocks `proved` (a
            # contradicted theorem stays contradicted: only a theory re-run concludes again)
            apply_experiment_evidence(ctx.bus, replans_allowed=False)
            _dedupe_counterexamples(ctx)
    return runs


def _failed(rec: StageRecord) -> bool:
    # read after the runner ran the stage (which sets the status it was reset to above)
    return rec.status == "failed"
