"""PaperDoc: everything the paper shows, gathered from the bus before any rendering.

Statements and proofs are copied verbatim from the TheoryState; only the prose fields come from
the model. The compile repair works on this object (switching a block to source display,
dropping a citation key, replacing a prose field) and the paper is rendered again from it, so
the .tex, the .md and the PDF always agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from eurekaclaw.agents.writer.bibtex import CitePlan
from eurekaclaw.agents.writer.directions import DirectionReport
from eurekaclaw.agents.writer.experiments import ExperimentView
from eurekaclaw.agents.writer.labels import THEOREM_LABEL, LabelMap, lemma_label
from eurekaclaw.agents.writer.machine_claims import Evidence, Records, scrub_proof, scrub_prose
from eurekaclaw.agents.writer.prose import fallback_prose
from eurekaclaw.types.artifacts import (
    VERIFICATION_ORDER,
    Counterexample,
    LemmaNode,
    ProofRecord,
    TheoryState,
    VerificationLevel,
    weakest_level,
)

PROSE_FIELDS = (
    "title",
    "abstract",
    "introduction",
    "preliminaries",
    "related_work",
    "limitations",
    "experiments",
)

LEVEL_MEANING: dict[str, str] = {
    "formal": "checked by a proof assistant kernel (Coq or Lean)",
    "smt": "the lemma's claim was proved by an SMT solver",
    "reviewed": "a model review in a fresh context found no error and numeric falsification found "
    "no counterexample; no machine proof (a self-review when the reviewing model also wrote the proof)",
    "cited": "a known result taken from a reference whose citation was verified",
    "unverified": "not checked",
}


def lemma_tag(status: str, level: str | None, self_review: bool = False) -> str:
    """The tag shown in a lemma's head and margin."""
    if status == "proved":
        if level in (None, "unverified"):
            return "unverified: not checked"
        return f"verified: {level} (self-review)" if level == "reviewed" and self_review else f"verified: {level}"
    return "refuted" if status == "refuted" else "not proved"


@dataclass
class LemmaView:
    id: str
    label: str
    statement: str
    informal: str
    status: str  # proved | open | refuted
    level: VerificationLevel | None
    proof: str | None
    provenance: str
    citation_key: str | None
    citation_text: str
    dependencies: list[str]
    checks: str  # e.g. "z3 passed; falsifier passed"
    is_root: bool = False
    self_review: bool = False

    @property
    def tag(self) -> str:
        return lemma_tag(self.status, self.level, self.self_review)


@dataclass
class PaperDoc:
    prose: dict[str, str]
    theorem_statement: str
    theorem_status: str
    theorem_proof: str | None
    theorem_level: VerificationLevel | None
    assumptions: list[str]
    lemmas: list[LemmaView]
    cite: CitePlan
    experiment: ExperimentView | None
    counterexamples: list[Counterexample]
    weakest: VerificationLevel
    levels_used: list[VerificationLevel]
    unproved_assembly: bool = False
    status_reason: str = ""
    contradictions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    labels: LabelMap | None = None
    directions: DirectionReport | None = None  # explore pivots: final direction, dropped ones
    # repair state
    source_blocks: set[str] = field(default_factory=set)
    block_undefined: dict[str, set[str]] = field(default_factory=dict)  # block -> undefined macros
    block_bad_chars: dict[str, set[str]] = field(default_factory=dict)  # block -> unsettable chars
    plain_prose: set[str] = field(default_factory=set)
    show_plot: bool = True

    @property
    def proved(self) -> bool:
        return self.theorem_status == "proved"

    def lemma_labels(self) -> set[str]:
        labels = set(TEMPLATE_LABELS)
        labels |= {lem.label for lem in self.lemmas}
        if self.labels is not None:
            labels |= set(self.labels.labels)
        if not ((self.prose.get("preliminaries") or "").strip() or self.assumptions):
            labels.discard("sec:prelim")  # the empty section is omitted
        if self.experiment is not None:
            labels |= {"sec:experiments", "fig:experiment", "tab:bounds"}
        return labels

    def summary_rows(self) -> list[tuple[str, str, str, str]]:
        """(result, status, verification level, checks) for the verification summary table."""
        rows: list[tuple[str, str, str, str]] = [
            (
                "Main theorem" if self.proved else "Main conjecture",
                self.theorem_status,
                self.theorem_level or "--",
                "weakest level of its lemmas" if self.proved else "",
            )
        ]
        rows += [(f"Lemma {lem.id}", str(lem.status), str(lem.level or "--"), lem.checks) for lem in self.lemmas]
        return rows

    def abstract_suffix(self) -> str:
        """The fixed sentences appended to the model's abstract: what was and was not proved,
        and the weakest verification level, stated by us rather than trusted to the model."""
        established = [lem for lem in self.lemmas if lem.status == "proved"]
        total = len(self.lemmas)
        if self.proved:
            return (
                "The main theorem was proved with machine assistance; the weakest verification "
                f"level used by its lemmas is {self.weakest} (see the verification summary)."
            )
        if self.theorem_status == "contradicted":
            n = len(self.contradictions)
            head = (
                "The main statement is contradicted by the numerical experiments "
                f"({n} of its bounds violated beyond statistical tolerance), so it is stated as a "
                "conjecture for the record, not as a theorem."
            )
        elif self.theorem_status == "refuted":
            head = (
                "The main statement was refuted during this work, so it is stated as a "
                "conjecture for the record, not as a theorem."
            )
        else:
            head = (
                "The main statement is not proved here and is presented as a conjecture "
                f"(theory status: {self.theorem_status})."
            )
        if established:
            return (
                f"{head} Only {len(established)} of {total} supporting lemmas were established, "
                f"the weakest at verification level {self.weakest}."
            )
        return f"{head} None of its supporting lemmas was established."


TEMPLATE_LABELS = (THEOREM_LABEL, "tab:levels", "sec:results", "sec:proofs", "sec:prelim")
_EQ_LABEL = re.compile(r"\\label\{([^{}]+)\}")


def block_labels(texts: list[str]) -> list[str]:
    """Labels the statements and proofs define themselves (equation labels)."""
    return [m for t in texts for m in _EQ_LABEL.findall(t or "")]


def topological_order(dag: dict[str, LemmaNode]) -> list[str]:
    """Dependencies first; ties keep the DAG's insertion order; a cycle is broken by order."""
    order: list[str] = []
    placed: set[str] = set()
    pending = list(dag)
    while pending:
        progressed = False
        for lid in list(pending):
            deps = [d for d in dag[lid].dependencies if d in dag]
            if all(d in placed for d in deps):
                order.append(lid)
                placed.add(lid)
                pending.remove(lid)
                progressed = True
        if not progressed:
            lid = pending.pop(0)
            order.append(lid)
            placed.add(lid)
    return order


def _checks_summary(checks: list, record: ProofRecord | None = None) -> str:
    parts = [f"{c.checker} {c.verdict}" for c in checks if c.verdict != "skipped"]
    text = "; ".join(parts[:4]) + ("; ..." if len(parts) > 4 else "")
    if record is not None and record.self_review and record.verification_level == "reviewed":
        text += "; self-review"
    if record is not None and record.supporting:
        text += "; supporting only: " + "; ".join(record.supporting)
    return text


def _lemma_status(theory: TheoryState, node: LemmaNode) -> str:
    if node.id in theory.proven_lemmas:
        return "proved"
    refuted = node.status == "refuted" or any(c.lemma_id == node.id and c.confirmed for c in theory.counterexamples)
    return "refuted" if refuted else "open"


def _dag_lemma(theory: TheoryState, plan: CitePlan, lid: str) -> LemmaView:
    node = theory.lemma_dag[lid]
    record = theory.proven_lemmas.get(lid)
    key = plan.resolve(node.citation)
    return LemmaView(
        id=lid,
        label=lemma_label(lid),
        statement=node.statement,
        informal=node.informal,
        status=_lemma_status(theory, node),
        level=record.verification_level if record else None,
        proof=record.proof if record else None,
        provenance=node.provenance,
        citation_key=key,
        citation_text="" if key else (node.citation or ""),
        dependencies=[d for d in node.dependencies if d in theory.lemma_dag],
        checks=_checks_summary(record.checks, record) if record else "",
        self_review=bool(record and record.self_review),
    )


def _orphan_lemma(lid: str, record: ProofRecord) -> LemmaView:
    """A lemma proved but missing from the DAG (e.g. after a re-plan): it still appears."""
    return LemmaView(
        id=lid,
        label=lemma_label(lid),
        statement="",
        informal="",
        status="proved",
        level=record.verification_level,
        proof=record.proof,
        provenance="new",
        citation_key=None,
        citation_text="",
        dependencies=[],
        checks=_checks_summary(record.checks, record),
        self_review=record.self_review,
    )


def _lemma_views(theory: TheoryState, plan: CitePlan, root_id: str | None) -> list[LemmaView]:
    """Every lemma but the theorem itself, in dependency order, then the orphans."""
    lemmas = [
        _dag_lemma(theory, plan, lid)
        for lid in topological_order(theory.lemma_dag)
        if not (theory.lemma_dag[lid].is_root and lid == root_id)
    ]
    lemmas += [_orphan_lemma(lid, rec) for lid, rec in theory.proven_lemmas.items() if lid not in theory.lemma_dag]
    return lemmas


def _theorem_statement(theory: TheoryState, root_id: str | None) -> str:
    root_node = theory.lemma_dag.get(root_id) if root_id else None
    statement = theory.formal_statement.strip() or (root_node.statement if root_node else "")
    return statement or theory.informal_statement


def _theorem_proof(theory: TheoryState, root_id: str | None) -> str | None:
    if theory.status != "proved":
        return None
    root_record = theory.proven_lemmas.get(root_id) if root_id else None
    # The lemmas and their proofs are typeset one by one, so the theorem's own proof is the
    # root's checked proof; the assembled document would repeat all of them.
    return root_record.proof if root_record else theory.assembled_proof


def _label_map(
    theory: TheoryState,
    lemmas: list[LemmaView],
    statement: str,
    proof: str | None,
    experiment: ExperimentView | None,
    root_id: str | None,
) -> LabelMap:
    """Labels of lemmas, template sections and every \\label the texts define themselves."""
    texts = [statement, proof or ""] + list(theory.assumptions)
    texts += [t for lem in lemmas for t in (lem.statement, lem.proof or "")]
    extra = list(TEMPLATE_LABELS) + block_labels(texts)
    if experiment is not None:
        extra += ["sec:experiments", "fig:experiment", "tab:bounds"]
    return LabelMap([lem.id for lem in lemmas], root_id, extra)


def build_doc(
    theory: TheoryState,
    plan: CitePlan,
    experiment: ExperimentView | None,
    prose: dict[str, str],
) -> PaperDoc:
    root_id = theory.root_id()
    lemmas = _lemma_views(theory, plan, root_id)
    statement = _theorem_statement(theory, root_id)
    proof = _theorem_proof(theory, root_id)
    levels = [r.verification_level for r in theory.proven_lemmas.values()]
    weakest = theory.weakest_level() if theory.proven_lemmas else weakest_level(levels)
    notes: list[str] = []
    prose, proof = _checked_claims(theory, plan, experiment, lemmas, proof, prose, notes)
    return PaperDoc(
        prose=dict(prose),
        theorem_statement=statement,
        theorem_status=theory.status,
        theorem_proof=proof,
        theorem_level=weakest if theory.status == "proved" else None,
        assumptions=[a for a in theory.assumptions if a.strip()],
        lemmas=lemmas,
        cite=plan,
        experiment=experiment,
        counterexamples=[c for c in theory.counterexamples if c.confirmed] or list(theory.counterexamples),
        weakest=weakest,
        levels_used=[lvl for lvl in VERIFICATION_ORDER if lvl in set(levels)],
        unproved_assembly=bool(theory.assembled_proof) and theory.status != "proved",
        status_reason=theory.status_reason,
        contradictions=list(theory.contradictions),
        labels=_label_map(theory, lemmas, statement, proof, experiment, root_id),
        notes=notes,
    )


def _checked_claims(
    theory: TheoryState,
    plan: CitePlan,
    experiment: ExperimentView | None,
    lemmas: list[LemmaView],
    proof: str | None,
    prose: dict[str, str],
    notes: list[str],
) -> tuple[dict[str, str], str | None]:
    """Model-written claims of machine verification (in lemma statements, proofs and prose) kept
    only where the records back them (machine_claims.py); every revision is built here too, so
    none can add one."""
    records = Records.from_theory(theory)
    for lem in lemmas:
        own = records.lemmas.get(lem.id, Evidence(lem.level))
        lem.proof = scrub_proof(lem.proof, own, records, f"Lemma {lem.id}", notes)
        # the statements are model-written too ("... (verified in Coq)")
        lem.statement = scrub_proof(lem.statement, own, records, f"Lemma {lem.id}", notes, "statement") or ""
        lem.informal = scrub_proof(lem.informal, own, records, f"Lemma {lem.id}", notes, "informal statement") or ""
    proof = scrub_proof(proof, records.theorem, records, "the main theorem", notes)
    prose, title_bad = scrub_prose(prose, records, notes)
    if title_bad:
        prose["title"] = fallback_prose(theory, plan, experiment)["title"]
    return prose, proof
