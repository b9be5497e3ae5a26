"""How a finished run is judged (which stages a re-run makes stale: graph.py).

Kept apart from the MetaOrchestrator so the rules that decide a session's status (and thereby
the CLI's exit code) can be read in one place.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.theory_view import theorem_view
from eurekaclaw.types.artifacts import PaperOutput, TheoryState
from eurekaclaw.types.tasks import PipelineState, SessionStatus


def paper_problem(paper: Any) -> str:
    """Why the paper is not a finished paper (TeX present but no PDF), else ''. A session
    without any LaTeX toolchain writes .tex and .md by design, which is not a failure."""
    if not isinstance(paper, PaperOutput):
        return ""
    if paper.compile_error and not paper.compiled:
        return f"paper.pdf was not built: {paper.compile_error[:300]}"
    return ""


def paper_note(paper: Any) -> str:
    """A note for a session whose paper is .tex/.md only because no toolchain exists."""
    if isinstance(paper, PaperOutput) and not paper.compiled and not paper.compile_error and paper.tex_file:
        if paper.compile_skipped:
            return f"paper.tex and paper.md only: {paper.compile_skipped}"
        return "no LaTeX toolchain: paper.tex and paper.md only (`eurekaclaw doctor`)"
    return ""


def session_status(pipeline: PipelineState, theory: Any, paper: Any) -> tuple[SessionStatus, str]:
    """(status, reason) of a run that went through every stage: `partial` when a stage failed
    or is missing, the theorem is not proved, or the paper's PDF failed to build."""
    statuses = [r.status for r in pipeline.stages]
    problem = paper_problem(paper)
    # the displayed status (theory_view), not the stage's word: a self-reviewed theorem or a
    # claim narrower than the statement leaves the session partial (exit code 1)
    shown = theorem_view(theory) if isinstance(theory, TheoryState) else None
    unproved = theory is not None and (shown is None or not shown.proved)
    partial = any(s in ("failed", "absent") for s in statuses) or unproved or bool(problem)
    parts = []
    if theory is not None and shown is None:
        parts.append(f"theorem {getattr(theory, 'status', 'unknown')}")
    if shown is not None:
        parts.append(f"theorem {shown.word}" + (f" ({shown.scope_sentence})" if shown.scope_sentence else ""))
    bad = [f"{r.name} {r.status}" for r in pipeline.stages if r.status in ("failed", "absent")]
    if bad:
        parts.append("; ".join(bad))
    if problem:
        parts.append(problem)
    elif note := paper_note(paper):
        parts.append(note)
    return ("partial" if partial else "completed"), ", ".join(parts)
