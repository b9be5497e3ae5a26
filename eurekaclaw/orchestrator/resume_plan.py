"""What a resumed session runs again: a failed or skipped stage gets a fresh chance, a paper
whose PDF was not built is written again, and a damaged artifact (moved aside on load) is
produced again by the first stage that makes it, with every later stage that already ran."""

from __future__ import annotations

import logging

from eurekaclaw.agents.stage import Stage
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.orchestrator.verdict import paper_problem
from eurekaclaw.store.session import SessionDir
from eurekaclaw.types.tasks import STAGE_ORDER, PipelineState

log = logging.getLogger(__name__)


def plan_resume(
    session: SessionDir,
    bus: KnowledgeBus,
    pipeline: PipelineState,
    impls: dict[str, Stage | None],
    lost: list[str],
) -> None:
    rerun_for_lost(session, pipeline, impls, lost)
    for rec in pipeline.stages:
        if rec.status in ("failed", "skipped"):
            rec.status, rec.reason, rec.attempts = "pending", "", 0
    write = pipeline.record("write")
    if write.status == "completed" and paper_problem(bus.get("paper")):
        # TeX was there but the PDF was not built: try the paper again
        write.status, write.reason, write.attempts = "pending", "re-run: paper.pdf was not built", 0
    bus.put_pipeline(pipeline)


def rerun_for_lost(
    session: SessionDir,
    pipeline: PipelineState,
    impls: dict[str, Stage | None],
    lost: list[str],
) -> None:
    """A damaged theory_state.json thus re-runs Formalize and Theory instead of ending without
    a theorem."""
    if not lost:
        return
    producers = [
        name
        for name in STAGE_ORDER
        if impls.get(name) is not None and set(getattr(impls[name], "produces", ())) & set(lost)
    ]
    if not producers:
        return
    first = STAGE_ORDER.index(producers[0])
    reason = f"re-run: {', '.join(f'{k}.json' for k in lost)} was damaged and moved aside"
    for rec in pipeline.stages:
        if STAGE_ORDER.index(rec.name) >= first and rec.status not in ("absent", "pending"):
            rec.status, rec.reason, rec.attempts = "pending", reason, 0
    log.warning("session %s: %s", session.session_id, reason)
    session.event("damaged_state", files=[f"{k}.json" for k in lost], rerun_from=producers[0])
