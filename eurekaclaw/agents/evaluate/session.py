"""Scientist-Bench evaluation of a session: five dimensions, a weighted total, eval_report.json.

Works on any finished or partial session: a missing artifact makes its dimension 0 (nothing
was achieved) or not applicable (nothing to measure), and the report says which.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.table import Table

from eurekaclaw.agents.evaluate.novelty import default_embedder, novelty
from eurekaclaw.agents.evaluate.paper_version import ScoredPaper, current_paper
from eurekaclaw.agents.evaluate.scores import (
    NAMES,
    citation_coverage,
    experimental_alignment,
    formal_correctness,
    proof_depth,
    weighted_total,
)
from eurekaclaw.agents.writer.bibtex import assign_cite_keys
from eurekaclaw.agents.writer.render import cited_keys
from eurekaclaw.config import Settings
from eurekaclaw.errors import SessionNotFoundError
from eurekaclaw.knowledge_bus.bus import KnowledgeBus
from eurekaclaw.knowledge_bus.keys import EVAL_REPORT, PAPER
from eurekaclaw.llm.session_client import SessionLLM
from eurekaclaw.types.artifacts import EvalDimension, EvalReport, TheoryState

REPORT_FILE = "eval_report.json"
LLM_LOG = "llm_log.jsonl"
PROVER_ROLES = ("prover", "refiner")
LABELS = {
    "formal_correctness": "Formal correctness",
    "novelty": "Novelty",
    "experimental_alignment": "Experimental alignment",
    "proof_depth": "Proof depth",
    "citation_coverage": "Citation coverage",
}
_UNSET: Any = object()
JUDGED_FOR = "judged_for_paper_version"
REUSED_MARK = " (reused from the evaluation of "


def _paper_citations(scored: ScoredPaper, session_dir: Path | None) -> set[str] | None:
    if session_dir is None or not scored.tex_file:
        return None
    path = Path(session_dir) / scored.tex_file
    if not path.is_file():
        return None
    return set(cited_keys(path.read_text("utf-8", "replace")))


def prover_identities(theory: TheoryState | None, session_dir: Path | None, explicit: str | None = None) -> set[str]:
    """Who wrote the proofs: `explicit` (the running session knows), the reviewer of any
    self-reviewed record (a self-review names the prover), and the models of the prover calls
    in the session's LLM log (bare model names)."""
    ids = {explicit} if explicit else set()
    if theory is not None:
        ids |= {r.reviewer for r in theory.proven_lemmas.values() if r.self_review and r.reviewer}
    log_path = Path(session_dir) / LLM_LOG if session_dir else None
    if log_path is not None and log_path.is_file():
        with log_path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if '"prover"' not in line and '"refiner"' not in line:
                    continue
                try:
                    request = json.loads(line).get("request") or {}
                except (ValueError, AttributeError):
                    continue
                if request.get("role") in PROVER_ROLES and request.get("model"):
                    ids.add(str(request["model"]))
    return ids


async def evaluate_bus(
    bus: KnowledgeBus,
    settings: Settings,
    llm: SessionLLM | None,
    *,
    session_dir: Path | None = None,
    embedder: Any = _UNSET,
    prover: str | None = None,
    reused_novelty: EvalDimension | None = None,
) -> EvalReport:
    """Score what is on the bus against the session's current paper version. `llm` judges
    novelty; `prover` is the identity of the model that wrote the proofs when the caller knows it
    (else it is read from the session). `embedder` defaults to the configured one; pass None to
    disable the embedding part. `reused_novelty` stands in for the novelty judgement (no model
    call, no embedding): a caller that knows the statement and the survey are unchanged."""
    weights = dict(zip(NAMES, settings.eval_weights, strict=True))
    theory = bus.get_theory_state()
    bib = bus.get_bibliography()
    session_dir = session_dir or bus.session_dir
    scored = current_paper(session_dir, bus.get(PAPER))
    keys = assign_cite_keys(bib.papers) if bib else {}
    if reused_novelty is not None:
        novelty_dim = reused_novelty.model_copy(deep=True)
    else:
        novelty_dim = await _judge_novelty(bus, settings, llm, weights["novelty"], session_dir, embedder, prover)
    dims = [
        formal_correctness(theory, weights["formal_correctness"]),
        novelty_dim,
        experimental_alignment(bus.get_experiment_result(), weights["experimental_alignment"], theory),
        proof_depth(theory, weights["proof_depth"]),
        citation_coverage(bib, keys, _paper_citations(scored, session_dir), weights["citation_coverage"]),
    ]
    total, notes = weighted_total(dims)
    if scored.note():
        notes.insert(0, scored.note())
    if theory is None:
        notes.append("the session has no theory state (it stopped before formalisation)")
    self_reviews = (theory is not None and dims[0].inputs.get("self_reviewed_lemmas")) or 0
    if self_reviews:
        notes.append(f"{self_reviews} lemma(s) were only self-reviewed: they count as weak evidence")
    notes.append(
        "self-referential: the system scores its own output; use it to compare configurations, "
        "not as external validation"
    )
    return EvalReport(
        session_id=bus.session_id, dimensions=dims, total=total, notes=notes, paper_version=scored.version
    )


async def _judge_novelty(
    bus: KnowledgeBus,
    settings: Settings,
    llm: SessionLLM | None,
    weight: float,
    session_dir: Path | None,
    embedder: Any,
    prover: str | None,
) -> EvalDimension:
    note = ""
    if embedder is _UNSET:
        embedder, note = default_embedder(settings)
    elif embedder is None:
        note = "embedding part disabled"
    theory = bus.get_theory_state()
    return await novelty(
        theory,
        bus.get_bibliography(),
        weight,
        llm=llm,
        embedder=embedder,
        embedder_note=note,
        provers=prover_identities(theory, session_dir, prover),
    )


async def rescore_prose_revision(session_dir: Path, settings: Settings) -> EvalReport | None:
    """Score the current paper version after a revision that changed prose only, reusing the
    previous report's novelty judgement (a prose revision changes neither the statement nor the
    survey, so a new model call would judge the same thing). None when the session has no
    report to refresh: `eval-session` then scores the current version in full."""
    bus = KnowledgeBus.load(Path(session_dir).name, Path(session_dir))
    previous = bus.get(EVAL_REPORT)
    if not isinstance(previous, EvalReport):
        return None
    old = next((d for d in previous.dimensions if d.name == "novelty"), None) or EvalDimension(
        name="novelty", score=None, weight=0.0, explanation="not applicable: the earlier evaluation had no judgement"
    )
    report = await _rescore_reusing(bus, Path(session_dir), settings, previous, old, "the revision changed prose only")
    bus.put(EVAL_REPORT, report)  # persisted at once as eval_report.json
    return report


async def _rescore_reusing(
    bus: KnowledgeBus, session_dir: Path, settings: Settings, previous: EvalReport, old: EvalDimension, why: str
) -> EvalReport:
    # a judgement reused before is credited to the version it was made for
    judged = old.inputs.get(JUDGED_FOR, previous.paper_version)
    which = f"version {judged}" if judged else "an earlier version"
    reused = old.model_copy(deep=True)
    reused.inputs[JUDGED_FOR] = judged
    reused.explanation = f"{old.explanation.split(REUSED_MARK)[0]}{REUSED_MARK}{which})".strip()
    report = await evaluate_bus(bus, settings, None, session_dir=session_dir, reused_novelty=reused)
    report.notes.insert(
        1 if report.notes and report.notes[0].startswith("scores paper version") else 0,
        f"novelty: the judgement of the evaluation of {which} is reused, without a new model call "
        f"({why}); the other dimensions were scored again",
    )
    return report


def stored_novelty(previous: object) -> EvalDimension | None:
    """The novelty judgement of an earlier report, when a model actually judged it (a report
    without a judgement, or with a failed one, has nothing worth reusing)."""
    if not isinstance(previous, EvalReport):
        return None
    old = next((d for d in previous.dimensions if d.name == "novelty"), None)
    return old if old is not None and old.score is not None else None


async def evaluate_session(
    session_dir: Path,
    settings: Settings,
    llm: SessionLLM | None,
    *,
    embedder: Any = _UNSET,
    prover: str | None = None,
    refresh: bool = True,
) -> EvalReport:
    """Load a session's artifacts, score them, write eval_report.json and put it on the bus.
    With `refresh=False` an earlier report's novelty judgement is reused (no model call): the
    statement and the survey it judged have not changed since."""
    session_dir = Path(session_dir)
    if not session_dir.is_dir():
        raise SessionNotFoundError(f"no session directory at {session_dir}")
    bus = KnowledgeBus.load(session_dir.name, session_dir)
    previous = bus.get(EVAL_REPORT)
    stored = None if refresh else stored_novelty(previous)
    if stored is not None and isinstance(previous, EvalReport):
        report = await _rescore_reusing(bus, session_dir, settings, previous, stored, "use --refresh to judge it again")
    else:
        report = await evaluate_bus(bus, settings, llm, session_dir=session_dir, embedder=embedder, prover=prover)
    bus.put(EVAL_REPORT, report)  # persisted at once as eval_report.json
    return report


def _fmt(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.3f}"


def render_eval_table(report: EvalReport) -> Table:
    version = f", paper version {report.paper_version}" if report.paper_version else ""
    table = Table(title=f"Scientist-Bench evaluation of session {report.session_id}{version}")
    table.add_column("Dimension")
    table.add_column("Score", justify="right")
    table.add_column("Weight", justify="right")
    table.add_column("Basis", overflow="fold")
    for dim in report.dimensions:
        table.add_row(
            LABELS.get(dim.name, dim.name),
            _fmt(dim.score),
            f"{dim.weight:.2f}" if dim.score is not None else f"[dim]{dim.weight:.2f}[/dim]",
            dim.explanation,
        )
    table.add_section()
    table.add_row("[bold]Total[/bold]", f"[bold]{report.total:.3f}[/bold]", "", "; ".join(report.notes[:-1]))
    return table
