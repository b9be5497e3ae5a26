"""What the pages show, read from the session store exactly as the CLI reads it.

Nothing here is cached: every request reads the session directory again, so a session started
from the terminal shows up (and moves) like one started in the browser.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from eurekaclaw.store.session import SessionDir, Workspace, read_usage
from eurekaclaw.theory_view import LemmaView
from eurekaclaw.types.artifacts import EvalReport, ExperimentResult, PaperOutput, TheoryState
from eurekaclaw.types.tasks import PipelineState, SessionMeta

SESSION_ID = re.compile(r"^[0-9a-f]{12}$")
# files of a session the browser may fetch: the paper, its sources and the experiment's data
SERVED_SUFFIXES = {
    ".pdf": "application/pdf",
    ".md": "text/markdown; charset=utf-8",
    ".tex": "text/plain; charset=utf-8",
    ".bib": "text/plain; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}
FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,120}$")
LEVELS = ("formal", "smt", "reviewed", "cited", "unverified")
GATE_REQUEST = "gate.request"
GATE_ANSWER = "gate.answer"


def find_session(workspace: Workspace, session_id: str) -> SessionDir | None:
    """The session with exactly this id, or None: ids are 12 hex digits, so no path can be
    smuggled through them."""
    if not SESSION_ID.fullmatch(session_id or ""):
        return None
    for session in workspace.sessions():
        if session.session_id == session_id:
            return session
    return None


def session_file(session: SessionDir, name: str) -> Path | None:
    """A servable file directly inside the session directory, or None (no subdirectories,
    no dot files, no symlinks leading out of it, only the paper and data suffixes)."""
    if not FILE_NAME.fullmatch(name or "") or Path(name).suffix.lower() not in SERVED_SUFFIXES:
        return None
    path = session.path / name
    try:
        # a symbolic link is never served, even one pointing inside: its target's name (and
        # suffix) is not the one that was checked
        if path.is_symlink():
            return None
        resolved = path.resolve(strict=True)
    except OSError:
        return None
    if resolved.parent != session.path.resolve() or not resolved.is_file():
        return None
    return resolved


def peek(path: Path, model: type[BaseModel] | None = None) -> tuple[Any, bool]:
    """(value, damaged) of a session file, for display only: a file the UI cannot read is
    reported as damaged, never moved aside (the run, or `resume`, owns that decision) and never
    shown as if it were empty."""
    try:
        if path.is_symlink():  # never followed out of the session folder
            return None, True
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, False
    except (OSError, UnicodeDecodeError):
        return None, True
    try:
        data = json.loads(raw)
        if model is None:
            return data, False
        return model.model_validate(data).model_dump(mode="json"), False
    except (ValueError, ValidationError):
        return None, True


def _status(session: SessionDir, meta: SessionMeta) -> str:
    if meta.status == "running" and session.running_pid() is None:
        return "interrupted"  # the process died without a checkpointed stop: resumable
    return meta.status


def cost_text(session_path: Path, cost_usd: float) -> str:
    """Dollars, or 'unknown' when a call had no price (never a false $0)."""
    usage = read_usage(session_path)
    if usage.get("cost_known", True):
        return f"${cost_usd:.4f}"
    priced = float(usage.get("priced_cost_usd") or 0.0)
    return f"unknown (≥ ${priced:.4f} priced)" if priced else "unknown"


def theorem_of(theory: dict[str, Any] | None) -> dict[str, Any] | None:
    """The theorem as every surface shows it (theory_view): status word, colour, level label,
    the checked claim, the model's words, the narrowing sentence, how it was checked."""
    if not theory:
        return None
    from eurekaclaw.agents.views import theorem_view

    view = theorem_view(TheoryState.model_validate(theory))
    return {
        "status": view.status,
        "word": view.word,
        "colour": view.colour,
        "proved": view.proved,
        "level": view.level,
        "level_label": view.level_label,
        "statement": view.statement_plain,
        "latex": view.statement if view.statement != view.statement_plain else "",
        "from_claim": view.from_claim,
        "in_words": view.in_words,
        "scope_sentence": view.scope_sentence,
        "how": view.how,
        "hint": view.hint,
        "self_reviewed": list(view.self_reviewed),
    }


# the sessions list's sort keys and the direction a first click on each column sorts in
SORTS = {"date": "desc", "status": "asc", "domain": "asc", "cost": "desc"}


def session_rows(
    workspace: Workspace, query: str = "", status: str = "", sort: str = "date", order: str = ""
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for session in workspace.sessions():
        meta, problem = session.read_meta()  # read only: a page view never moves a file
        if meta is None:
            row = _damaged_row(session, problem)
            if _matches(row, query, status):
                rows.append(row)
            continue
        theorem, damaged = _row_theorem(session)
        cost = cost_text(session.path, meta.cost_usd)
        row = {
            "id": session.session_id,
            "mode": meta.mode,
            "statement": meta.statement or " ".join(meta.paper_ids),
            "status": _status(session, meta),
            # the displayed status (never the stage's plain word): self_reviewed, narrower_claim, ...
            "theory_status": theorem["status"] if theorem else _stored_status(meta.theory_status),
            "theorem": theorem,
            "weakest_level": "unreadable" if damaged else (theorem or {}).get("level"),
            "cost": cost,
            # sorted by only when known: an unpriced call's cost is not $0
            "cost_usd": meta.cost_usd if cost.startswith("$") else None,
            "domain": meta.domain,
            "created": meta.created_at,
            "damaged": problem,
        }
        if _matches(row, query, status):
            rows.append(row)
    return sort_rows(rows, sort, order)


def sort_rows(rows: list[dict[str, Any]], sort: str = "date", order: str = "") -> list[dict[str, Any]]:
    """Rows by date, status, domain or cost (an unknown key sorts by date); a row without a value
    (an unknown cost, a damaged session's domain) goes last in either direction, never first as
    if it were zero. Ties keep newest first."""
    sort = sort if sort in SORTS else "date"
    descending = (order or SORTS[sort]) == "desc"

    def value(row: dict[str, Any]) -> Any:
        if sort == "date":
            return row["created"]
        if sort == "cost":
            return row.get("cost_usd")
        return (row.get(sort) or "").lower() or None

    rows = sorted(rows, key=lambda r: r["created"], reverse=True)
    known = [r for r in rows if value(r) is not None]
    known.sort(key=value, reverse=descending)  # stable: equal values stay newest first
    return known + [r for r in rows if value(r) is None]


def _matches(row: dict[str, Any], query: str, status: str) -> bool:
    text = f"{row['id']} {row['statement']} {row['domain']} {row['mode']} {row['damaged']}".lower()
    if query and query.lower() not in text:
        return False
    shown = (row["status"], row["theory_status"], "damaged" if row["damaged"] else None)
    return not status or status in shown


def _damaged_row(session: SessionDir, problem: str) -> dict[str, Any]:
    """A session nothing readable is left of: listed as damaged with the reason, never hidden."""
    try:
        created = datetime.fromtimestamp(session.path.lstat().st_mtime, UTC)
    except OSError:
        created = datetime.fromtimestamp(0, UTC)
    return {
        "id": session.session_id,
        "mode": "?",
        "statement": "",
        "status": "damaged",
        "theory_status": None,
        "theorem": None,
        "weakest_level": None,
        "cost": "unknown",
        "cost_usd": None,
        "domain": "",
        "created": created,
        "damaged": problem,
    }


def _row_theorem(session: SessionDir) -> tuple[dict[str, Any] | None, bool]:
    theory, damaged = peek(session.file("theory_state.json"), TheoryState)
    return (None if damaged else theorem_of(theory)), damaged


def _stored_status(status: str | None) -> str | None:
    """A theory status without a readable theory state: never shown as a plain proof."""
    return "unknown" if status == "proved" else status


def _duration(rec: dict[str, Any]) -> str:
    try:
        start = datetime.fromisoformat(rec["started_at"])
        end = datetime.fromisoformat(rec["finished_at"])
        seconds = (end - start).total_seconds()  # naive minus aware is a TypeError
    except (KeyError, TypeError, ValueError):
        return ""
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def session_view(workspace: Workspace, session: SessionDir) -> dict[str, Any]:
    """Everything the session page shows, from the session's own files."""
    from eurekaclaw.ui.dag import layout

    meta, problem = session.read_meta()  # read only: a page view never moves a file
    damaged = [problem] if problem else []
    pipeline, bad = peek(session.file("pipeline.json"), PipelineState)
    damaged += ["pipeline.json"] if bad else []
    theory, bad = peek(session.file("theory_state.json"), TheoryState)
    damaged += ["theory_state.json"] if bad else []
    report, bad = peek(session.file("eval_report.json"), EvalReport)
    damaged += ["eval_report.json"] if bad else []
    paper, bad = peek(session.file("paper.json"), PaperOutput)
    damaged += ["paper.json"] if bad else []
    experiment, bad = peek(session.file("experiment_result.json"), ExperimentResult)
    damaged += ["experiment_result.json"] if bad else []
    usage = read_usage(session.path)
    stages = [{**rec, "duration": _duration(rec)} for rec in (pipeline or {}).get("stages", [])]
    files = sorted(p.name for p in session.path.iterdir() if session_file(session, p.name) is not None)
    running = session.running_pid() is not None
    # a gate already answered (the run has not picked the answer up yet) is not asked again
    asked = running and not session.file(GATE_ANSWER).exists()
    gate = peek(session.file(GATE_REQUEST))[0] if asked else None
    status = _status(session, meta) if meta else "unknown"
    shown = lemma_views_of(theory)
    theorem = theorem_of(theory)
    return {
        "id": session.session_id,
        "meta": meta,
        "status": status,
        "running": running,
        "resumable": not running and status in ("paused", "interrupted", "partial", "budget_exceeded", "failed"),
        "stages": stages,
        "theory": theory,
        "dag": layout(theory, shown, theorem) if theory else None,
        "lemmas": lemma_rows(theory, shown) if theory else [],
        "theorem": theorem,
        "weakest_level": (theorem or {}).get("level"),
        "cost": cost_text(session.path, meta.cost_usd if meta else 0.0),
        "tokens": _tokens(usage),
        "calls": usage.get("calls"),
        "files": files,
        "gate": gate if isinstance(gate, dict) else None,
        "eval": report,
        "paper": paper,
        "damaged": damaged,
        "experiment": experiment,
        "figures": _figures(session, files, experiment),
    }


def _figures(session: SessionDir, files: list[str], experiment: dict[str, Any] | None) -> list[dict[str, Any]]:
    from eurekaclaw.agents.writer.experiments import bound_series
    from eurekaclaw.ui.figures import figures

    # which policy each bound was derived for, read as the paper reads it
    targets = bound_series(ExperimentResult.model_validate(experiment)) if experiment else {}
    return [fig for name in files if name.endswith(".csv") for fig in figures(session.path / name, targets)]


def _tokens(usage: dict[str, Any]) -> int | None:
    total = usage.get("total")
    if isinstance(total, dict):
        return int(total.get("input_tokens") or 0) + int(total.get("output_tokens") or 0)
    return None


def lemma_views_of(theory: dict[str, Any] | None) -> dict[str, LemmaView]:
    """Every lemma's displayed status, level and colour (theory_view), by id."""
    if not theory:
        return {}
    from eurekaclaw.agents.views import lemma_views

    return lemma_views(TheoryState.model_validate(theory))


def lemma_rows(theory: dict[str, Any], shown: dict[str, LemmaView] | None = None) -> list[dict[str, Any]]:
    shown = shown if shown is not None else lemma_views_of(theory)
    proven = theory.get("proven_lemmas") or {}
    failed = theory.get("failed_attempts") or []
    counter = theory.get("counterexamples") or []
    rows = []
    for lemma_id, node in (theory.get("lemma_dag") or {}).items():
        record = proven.get(lemma_id) or {}
        view = shown[lemma_id]
        latex = node.get("statement") or ""
        rows.append(
            {
                "id": lemma_id,
                "statement": view.statement_plain,
                "latex": latex if latex != view.statement_plain else "",
                "status": view.status,
                "word": view.word,
                "colour": view.colour,
                "how": view.how,
                "provenance": node.get("provenance", "new"),
                "citation": node.get("citation"),
                "dependencies": node.get("dependencies") or [],
                "level": view.level,
                "level_label": view.level_label,
                "level_note": record.get("level_note") or "",
                "self_review": view.support == "self",
                "reviewer": view.reviewer,
                "attempts": record.get("attempts") or sum(1 for f in failed if f.get("lemma_id") == lemma_id),
                "checks": record.get("checks") or [],
                "failures": [f for f in failed if f.get("lemma_id") == lemma_id],
                "counterexamples": [c for c in counter if c.get("lemma_id") == lemma_id],
            }
        )
    return rows
