"""Theory states of every kind a surface must tell apart, and a finished session holding one,
written through the store's own models (as a run leaves them). Used by the CLI, paper, UI and
adversarial surface tests."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from eurekaclaw.store.files import atomic_write_json
from eurekaclaw.store.session import SessionDir, Workspace
from eurekaclaw.types.artifacts import (
    CheckResult,
    Claim,
    ClaimVariable,
    Counterexample,
    LemmaNode,
    ProofRecord,
    StatementScope,
    TheoryState,
)
from eurekaclaw.types.tasks import PipelineState, SessionMeta

STATEMENT = "every real x has x^2 >= x"
PROSE = "For every real number $x$, $x^2 \\ge x$."
SCOPE_SENTENCE = "proved for x ≥ 1; the statement asked for every real x"
KINDS = ("proved", "self_reviewed", "old_self_review", "contradicted", "refuted", "narrower", "capped")


def _record(lid: str, level: str, *, self_review: bool = False, reviewer: str = "scripted:prover") -> ProofRecord:
    checks = [CheckResult(checker="falsifier", verdict="passed")]
    if level == "smt":
        checks.append(CheckResult(checker="z3", verdict="passed", version="4.13.0"))
    if level == "reviewed":
        checks.append(CheckResult(checker="llm_review", verdict="passed"))
    return ProofRecord(
        lemma_id=lid,
        proof=f"Proof of {lid} by algebra.",
        verification_level=level,  # type: ignore[arg-type]
        checks=checks,
        reviewer=reviewer,
        self_review=self_review,
    )


def theory_of(kind: str) -> TheoryState:
    """A finished theory of `kind` (one of KINDS) over the root claim `x >= 1 => x^2 >= x`."""
    claim = Claim(variables=[ClaimVariable(name="x", domain="real")], assumptions=["x >= 1"], conclusion="x^2 >= x")
    dag = {
        "L1": LemmaNode(id="L1", statement="For $x \\ge 1$, $x - 1 \\ge 0$.", status="proved"),
        "T": LemmaNode(id="T", statement=PROSE, is_root=True, dependencies=["L1"], claim=claim, status="proved"),
    }
    root_level = "reviewed" if kind in ("self_reviewed", "old_self_review") else "smt"
    proven = {
        "L1": _record("L1", "smt"),
        "T": _record("T", root_level, self_review=root_level == "reviewed"),
    }
    status = {
        "self_reviewed": "self_reviewed",
        "old_self_review": "proved",
        "contradicted": "contradicted",
        "refuted": "refuted",
        "capped": "abandoned",
    }.get(kind, "proved")
    state = TheoryState(
        informal_statement=STATEMENT,
        formal_statement=PROSE,
        lemma_dag=dag,
        proven_lemmas=proven,
        status=status,  # type: ignore[arg-type]
        status_reason=f"the theory ended {status}",
        consistency_check=CheckResult(checker="consistency", verdict="passed"),
    )
    if kind == "contradicted":
        state.contradictions = ["bound T violated at horizon 1000 (empirical 2.1 > 1.6)"]
    if kind == "refuted":
        del state.proven_lemmas["T"]
        dag["T"].status = "refuted"
        state.counterexamples = [
            Counterexample(lemma_id="T", assignment={"x": 0.5}, confirmed=True, checker="falsifier")
        ]
    if kind == "capped":
        state.level_cap_reasons = ["L0 was refuted and replaced by a lemma without a claim"]
    if kind == "narrower":
        state.statement_scope = StatementScope(relation="narrower", sentence=SCOPE_SENTENCE, witness={"x": "1/2"})
    return state


def write_session(home: Path, sid: str, kind: str, *, session_status: str = "partial") -> SessionDir:
    """A finished session of `kind`: session.json, pipeline.json, theory_state.json, usage.json."""
    theory = theory_of(kind)
    session = SessionDir(Workspace(home).runs_dir / sid)
    session.path.mkdir(parents=True)
    session.save_meta(
        SessionMeta(
            session_id=sid,
            mode="prove",
            statement=STATEMENT,
            status=session_status,  # type: ignore[arg-type]
            domain="general",
            backend="scripted",
            theory_status=theory.status,
            created_at=datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC),
        )
    )
    pipeline = PipelineState()
    for rec in pipeline.stages:
        rec.status = "completed"
    atomic_write_json(session.file("pipeline.json"), pipeline)
    atomic_write_json(session.file("theory_state.json"), theory)
    atomic_write_json(session.file("usage.json"), {"calls": 3, "cost_known": True, "cost_usd": 0.0})
    return session
