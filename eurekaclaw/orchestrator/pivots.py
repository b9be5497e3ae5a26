"""`explore` pivots: a direction whose theory ends abandoned, refuted or contradicted hands over
to the next scored direction of the research brief, at most `InputSpec.max_pivots` times.

Each direction is a versioned sub-run of the same session: the dropped direction's theory state,
experiment result and plot data are copied to `directions/v<k>/`, the brief records it (with its
outcome and reason) in `dropped_directions`, and Formalize → Theory → Experiment run again for
the next direction. The paper reports the final direction and why the others were dropped.

Crash safety: the decision is one atomic write (the brief: the dropped direction and the new
selection together). The steps after it — forget the old experiment, re-open the stages, forget
the old theory — are finished on resume when the theory on the bus still belongs to a direction
the brief lists as dropped; once the old theory is gone nothing can trigger a second hand-over
for the same direction.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eurekaclaw.agents.transitions import Pivot
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.knowledge_bus.keys import EXPERIMENT_RESULT, THEORY_STATE
from eurekaclaw.orchestrator.graph import StageGraph
from eurekaclaw.orchestrator.session_run import SessionRun
from eurekaclaw.orchestrator.stages import STAGE_GRAPH
from eurekaclaw.store.files import make_dirs
from eurekaclaw.types.artifacts import DroppedDirection, ResearchBrief, ResearchDirection
from eurekaclaw.types.tasks import InputSpec, PipelineState

log = logging.getLogger(__name__)

# Theory outcomes that end a direction (DESIGN §3 TheoryState.status).
PIVOT_OUTCOMES = ("abandoned", "refuted", "contradicted")
# What one direction consists of: archived when it is dropped, made again for the next one.
DIRECTION_ARTIFACTS = (THEORY_STATE, EXPERIMENT_RESULT)


def direction_stages(graph: StageGraph) -> tuple[str, ...]:
    """The stages a pivot runs again: those that produce a direction's artifacts."""
    return graph.producers(DIRECTION_ARTIFACTS)


# The pipeline checks for a failed direction before the stages that declare themselves pivot
# points: the experiment (a refuted or abandoned theory needs no experiment) and the paper (the
# experiment may have contradicted the theory).
PIVOT_POINTS = STAGE_GRAPH.pivot_points
RERUN = direction_stages(STAGE_GRAPH)
ARCHIVE_DIR = "directions"
ARCHIVED_FILES = tuple(f"{key}.json" for key in DIRECTION_ARTIFACTS)


def _key(text: str) -> str:
    return " ".join(text.split()).lower()


def next_direction(brief: ResearchBrief) -> ResearchDirection | None:
    """The best-scored direction not tried yet (brief.directions is ranked best first)."""
    tried = {_key(d.statement) for d in brief.dropped_directions}
    if brief.selected_direction is not None:
        tried.add(_key(brief.selected_direction.statement))
    for direction in brief.directions:
        if direction.statement.strip() and _key(direction.statement) not in tried:
            return direction
    return None


def _archive(session_dir: Path, bus: KnowledgeBus, version: int) -> str:
    """Copy the ending direction's files to directions/v<version>/; returns that path
    relative to the session directory."""
    relative = f"{ARCHIVE_DIR}/v{version}"
    target = session_dir / relative
    make_dirs(target)
    names = list(ARCHIVED_FILES)
    result = bus.get_experiment_result()
    if result is not None and result.plot_csv:
        names.append(Path(result.plot_csv).name)
    for name in names:
        source = session_dir / name
        if source.is_file():
            shutil.copy2(source, target / name)
    return relative


def pivot_if_failed(
    bus: KnowledgeBus,
    session_dir: Path,
    pipeline: PipelineState,
    spec: InputSpec,
    events: Callable[..., Any] | None = None,
    rerun: tuple[str, ...] = RERUN,
) -> DroppedDirection | None:
    """Hand a failed `explore` direction over to the next one; the dropped direction when that
    happened (the caller then runs the pipeline again from the first of `rerun`), else None."""
    if spec.mode != "explore":
        return None
    theory, brief = bus.get_theory_state(), bus.get_research_brief()
    if theory is None or brief is None or theory.status not in PIVOT_OUTCOMES:
        return None
    statement = _key(theory.informal_statement)
    dropped = next((d for d in brief.dropped_directions if _key(d.statement) == statement), None)
    if dropped is None:
        current = brief.selected_direction
        if current is None or _key(current.statement) != statement:
            return None  # the theory is not the selected direction's: nothing to hand over
        if len(brief.dropped_directions) >= spec.max_pivots:
            _note_once(bus, brief, f"no pivot: the limit of {spec.max_pivots} pivot(s) is reached")
            return None
        following = next_direction(brief)
        if following is None:
            _note_once(bus, brief, "no pivot: no scored direction is left to try")
            return None
        version = len(brief.dropped_directions) + 1
        dropped = DroppedDirection(
            version=version,
            title=current.title,
            statement=current.statement,
            composite=current.composite,
            outcome=theory.status,
            reason=theory.status_reason or f"the theory ended {theory.status}",
            archive=_archive(session_dir, bus, version),
        )
        brief.dropped_directions.append(dropped)
        brief.selected_direction = following
        brief.notes.append(
            f"pivot {version}: direction {current.title!r} ended {theory.status}; next: {following.title!r}"
        )
        bus.put_research_brief(brief)  # the decision, in one atomic write
    nxt = brief.selected_direction
    reason = f"pivot {dropped.version}: {dropped.title!r} ended {dropped.outcome}; now {nxt.title if nxt else '?'!r}"
    bus.discard("experiment_result")
    for name in rerun:
        rec = pipeline.record(name)
        if rec.status != "absent":
            rec.status, rec.reason, rec.attempts = "pending", reason, 0
            rec.started_at = rec.finished_at = None
    bus.put_pipeline(pipeline)
    bus.discard("theory_state")
    log.info("session %s: %s", bus.session_id, reason)
    if events is not None:
        events(
            "pivot",
            version=dropped.version,
            dropped=dropped.title,
            outcome=dropped.outcome,
            direction=nxt.title if nxt else "",
            message=reason,
        )
    return dropped


def _note_once(bus: KnowledgeBus, brief: ResearchBrief, note: str) -> None:
    if note not in brief.notes:
        brief.notes.append(note)
        bus.put_research_brief(brief)


def pivot(run: SessionRun, graph: StageGraph = STAGE_GRAPH) -> Pivot | None:
    """The pivot as a transition of the session's graph, when its direction has ended."""
    dropped = pivot_if_failed(run.bus, run.session.path, run.pipeline, run.spec, run.events, direction_stages(graph))
    if dropped is None:
        return None
    brief = run.bus.get_research_brief()
    following = brief.selected_direction if brief is not None else None
    return Pivot(following.title if following else "", f"{dropped.title!r} ended {dropped.outcome}")
