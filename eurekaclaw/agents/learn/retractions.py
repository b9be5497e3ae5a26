"""What a session showed to be false, and how that reaches what earlier sessions stored.

A statement is shown false when the session's theorem was refuted or contradicted by an
experiment, when a lemma was refuted, or when a counterexample was confirmed. Each such
statement is retracted in the knowledge graph (matched by its normalised form, with the
evidence linked by a `contradicts` edge); the sessions that had stored it get their
knowledge/strategy insights and their distilled skills flagged as retracted, so none of them
reaches a later prompt as known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from eurekaclaw.skills.evolver import compress, flag_retracted_skills
from eurekaclaw.types.artifacts import Counterexample, TheoryState

if TYPE_CHECKING:
    from eurekaclaw.memory.manager import MemoryManager
    from eurekaclaw.skills.registry import SkillRegistry

# A pitfall or an open problem from a session whose result later fell is still worth keeping;
# what it claimed to know or to work is not.
RETRACTED_INSIGHT_CATEGORIES = frozenset({"domain_knowledge", "proof_strategy"})


@dataclass(frozen=True)
class FalseStatement:
    statement: str
    reason: str
    evidence: str = ""


def lemma_statement(state: TheoryState, lemma_id: str) -> str:
    node = state.lemma_dag.get(lemma_id)
    if node is None:
        return ""
    return node.statement or node.informal


def _cx_line(cx: Counterexample) -> str:
    where = f" at {cx.assignment}" if cx.assignment else ""
    return f"{cx.checker + ' ' if cx.checker else ''}counterexample{where}" + (
        f": {compress(cx.description, 200)}" if cx.description else ""
    )


def false_statements(state: TheoryState, session_id: str) -> list[FalseStatement]:
    """Every statement this session showed to be false, once each (by normalised text)."""
    out: list[FalseStatement] = []
    root = state.root_id()
    theorem_texts = [t for t in (lemma_statement(state, root) if root else "", state.formal_statement) if t.strip()]
    confirmed = [c for c in state.counterexamples if c.confirmed]
    if state.status == "contradicted":
        lines = state.contradictions or ([state.status_reason] if state.status_reason else [])
        violated = "; ".join(compress(line, 200) for line in lines[:3]) or "a claimed bound"
        for text in theorem_texts:
            out.append(
                FalseStatement(
                    text,
                    f"contradicted in session {session_id}: an experiment violated {violated}",
                    f"Experiment of session {session_id} contradicts «{compress(text, 200)}»: {violated}",
                )
            )
    if state.status == "refuted":
        cx = next((c for c in confirmed if c.lemma_id == root), None)
        why = _cx_line(cx) if cx else (state.status_reason or "refuted")
        for text in theorem_texts:
            out.append(
                FalseStatement(
                    text,
                    f"refuted in session {session_id}: {why}",
                    f"Refutation of «{compress(text, 200)}» in session {session_id}: {why}",
                )
            )
    refuted_ids = [lid for lid, node in state.lemma_dag.items() if node.status == "refuted" and lid != root]
    refuted_ids += [c.lemma_id for c in confirmed if c.lemma_id not in refuted_ids and c.lemma_id != root]
    for lid in refuted_ids:
        cxs = [c for c in confirmed if c.lemma_id == lid]
        texts = [lemma_statement(state, lid)] + [c.statement for c in cxs]
        why = _cx_line(cxs[0]) if cxs else "refuted"
        for text in texts:
            if text.strip():
                out.append(
                    FalseStatement(
                        text,
                        f"refuted in session {session_id}: {why}",
                        f"Counterexample to «{compress(text, 200)}» (session {session_id}): {why}",
                    )
                )
    return _unique(out)


def _unique(items: list[FalseStatement]) -> list[FalseStatement]:
    from eurekaclaw.memory.knowledge_graph import normalize_statement

    seen: set[str] = set()
    out = []
    for item in items:
        key = normalize_statement(item.statement)
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


@dataclass
class RetractionReport:
    retracted: list[str]
    demoted: list[str]
    flagged_skills: list[str]


def apply_retractions(
    state: TheoryState, memory: MemoryManager, registry: SkillRegistry, domain: str, session_id: str
) -> RetractionReport:
    report = RetractionReport([], [], [])
    for item in false_statements(state, session_id):
        result = memory.retract_theorem(
            item.statement,
            domain,
            item.reason,
            evidence=item.evidence,
            insight_categories=RETRACTED_INSIGHT_CATEGORIES,
        )
        report.retracted.append(result.node_id)
        report.demoted += [d for d in result.demoted if d not in report.demoted]
        earlier = set(result.sessions) - {session_id}
        for name in flag_retracted_skills(registry, earlier, item.reason):
            if name not in report.flagged_skills:
                report.flagged_skills.append(name)
    return report
