"""What a resumed session runs again: a failed or skipped stage gets a fresh chance, a paper
whose PDF was not built is written again, and a damaged artifact (moved aside on load) is
produced again by the first stage that makes it, with every stage downstream of that one that
already ran. Which stages those are comes from the stage graph's declarations."""

from __future__ import annotations

import logging

from eurekaclaw.agents.stage import Stage
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.knowledge_bus.keys import PAPER
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.stages import STAGE_GRAPH
from eurekaclaw.orchestrator.verdict import paper_problem
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.tasks import PipelineState

log = logging.getLogger(__name__)


def plan_resume(
    session: SessionDir,
    bus: KnowledgeBus,
    pipeline: PipelineState,
    impls: dict[str, Stage | None],
    lost: list[str],
    graph: StageGraph = STAGE_GRAPH,
) -> None:
    rerun_for_lost(session, pipeline, impls, lost, graph)
    for rec in pipeline.stages:
        if rec.status in ("failed", "skipped"):
            rec.status, rec.reason, rec.attempts = "pending", "", 0
    for name in graph.producers([PAPER]):
        rec = pipeline.record(name)
        if rec.status == "completed" and paper_problem(bus.get(PAPER)):
            # TeX was there but the PDF was not built: try the paper again
            rec.status, rec.reason, rec.attempts = "pending", "re-run: paper.pdf was not built", 0
    bus.put_pipeline(pipeline)


def rerun_for_lost(
    session: SessionDir,
    pipeline: PipelineState,
    impls: dict[str, Stage | None],
    lost: list[str],
    graph: StageGraph = STAGE_GRAPH,
) -> None:
    """A damaged theory_state.json thus re-runs Formalize and Theory instead of ending without
    a theorem."""
    if not lost:
        return
    producers = [name for name in graph.producers(lost) if impls.get(name) is not None]
    if not producers:
        return
    again = {producers[0], *graph.downstream(producers[0])}
    reason = f"re-run: {', '.join(f'{k}.json' for k in lost)} was damaged and moved aside"
    for rec in pipeline.stages:
        if rec.name in again and rec.status not in ("absent", "pending"):
            rec.status, rec.reason, rec.attempts = "pending", reason, 0
    log.warning("session %s: %s", session.session_id, reason)
    session.event("damaged_state", files=[f"{k}.json" for k in lost], rerun_from=producers[0])
