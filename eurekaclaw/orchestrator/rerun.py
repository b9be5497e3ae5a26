"""Re-run chosen stages of a finished session with the orchestrator's own stage code.

`review --revise` uses this to redo theory (for named lemmas or the whole proof), the experiment
and the writer. Each stage is the one `run`/`resume` runs (orchestrator/stages.py); this module
adds only what a partial re-run needs: which lemmas go back to pending, a prose cache that no
longer describes the records, and the experiment's evidence applied again (without a re-plan, a
revision never re-formalizes). The caller owns the bus: it should be a copy it can throw away.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage
from eurekaclaw.agents.writer.stage import PROSE_CACHE_KEY
from eurekaclaw.errors import (
    BudgetExceededError,
    EurekaError,
    LLMAuthError,
    StageFailedError,
    StorageError,
)
from eurekaclaw.llm.context import current_stage
from eurekaclaw.orchestrator.evidence import apply_experiment_evidence
from eurekaclaw.orchestrator.stages import load_stage
from eurekaclaw.types.artifacts import TheoryState
from eurekaclaw.types.tasks import STAGE_ORDER, InputSpec

log = logging.getLogger(__name__)

RERUNNABLE = ("theory", "experiment", "write")


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


async def _run_one(ctx: AgentContext, spec: InputSpec, stage: Stage, *, resume: bool,
                   attribute_to: str | None) -> StageRun:
    token = current_stage.set(attribute_to or stage.name)
    try:
        outcome = await stage.run(ctx, spec, resume=resume)
    except (BudgetExceededError, LLMAuthError, StorageError):
        raise
    except EurekaError as exc:
        raise RerunFailed(f"the {stage.name} stage failed: {exc.message}") from exc
    except Exception as exc:  # a stage bug must end in one line, and the caller rolls back
        log.debug("re-run of %s failed", stage.name, exc_info=True)
        raise RerunFailed(f"the {stage.name} stage failed: {type(exc).__name__}: {exc}") from exc
    finally:
        current_stage.reset(token)
    if outcome.status == "failed":
        raise RerunFailed(f"the {stage.name} stage failed: {outcome.reason or 'no reason given'}")
    return StageRun(stage.name, outcome.status, outcome.reason or outcome.summary)


async def rerun_stages(ctx: AgentContext, spec: InputSpec, stages: list[str], *,
                       lemmas: list[str] | None = None,
                       impls: dict[str, Stage] | None = None,
                       attribute_to: str | None = None) -> list[StageRun]:
    """Run `stages` (a subset of theory, experiment, write) in pipeline order on ctx.bus.
    Theory with `lemmas` re-proves those lemmas and concludes again; without, it starts over
    from the formalized DAG, as a fresh Theory stage does. `attribute_to` books the model calls
    to that stage in the usage ledger (a review's re-run is review spending) instead of each
    stage's own name."""
    unknown = [s for s in stages if s not in RERUNNABLE]
    if unknown:
        raise ValueError(f"not re-runnable: {unknown}")
    runs: list[StageRun] = []
    for name in (s for s in STAGE_ORDER if s in stages):
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
