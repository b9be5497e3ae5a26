"""PaperDoc: everything the paper shows, gathered from the bus before any rendering.

Statements and proofs are copied verbatim from the TheoryState; only the prose fields come from
the model. The compile repair works on this object (switching a block to source display,
dropping a citation key, replacing a prose field) and the paper is rendered again from it, so
the .tex, the .md and the PDF always agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from eurekaclaw.agents.views import lemma_view, theorem_view
from eurekaclaw.agents.writer.bibtex import CitePlan
from eurekaclaw.agents.writer.directions import DirectionReport
from eurekaclaw.agents.writer.experiments import ExperimentView
from eurekaclaw.agents.writer.labels import THEOREM_LABEL, LabelMap, lemma_label
from eurekaclaw.agents.writer.machine_claims import Evidence, Records, scrub_proof, scrub_prose
from eurekaclaw.agents.writer.prose import fallback_prose
from eurekaclaw.theory_view import STANDING, TheoremView
from eurekaclaw.theory_view import LemmaView as ShownLemma
from eurekaclaw.types.artifacts import (
    VERIFICATION_ORDER,
    CheckResult,
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


def lemma_tag(view: ShownLemma) -> str:
    """The tag shown in a lemma's head and margin, from the one status function."""
    if view.status == "proved":
        return f"verified: {view.level_label}"
    if view.status == "self_reviewed":
        return f"self-reviewed: {view.level_label}, no independent check"
    if view.status == "unverified":
        return "unverified: not checked"
    if view.status == "circular":
        return "failed: circular proof"
    return "refuted" if view.status == "refuted" else "not proved"


# LemmaView.status for the paper's records (review checks answers against it): a lemma with a
# recorded proof is "proved" whatever its level (the level and self_review say how far it goes)
_PAPER_STATUS = {"proved": "proved", "self_reviewed": "proved", "unverified": "proved", "refuted": "refuted"}


@dataclass
class LemmaView:
    id: str
    label: str
    statement: str
    informal: str
    status: str  # proved | open | refuted | circular
    level: VerificationLevel | None
    proof: str | None
    provenance: str
    citation_key: str | None
    citation_text: str
    dependencies: list[str]
    checks: str  # e.g. "z3 passed; falsifier passed"
    is_root: bool = False
    self_review: bool = False
    view: ShownLemma | None = None

    @property
    def tag(self) -> str:
        if self.view is None:
            return "not proved"
        return lemma_tag(self.view)


@dataclass
class PaperDoc:
    prose: dict[str, str]
    theorem_statement: str  # the rendered root claim when there is one (theory_view)
    theorem_status: str  # a theory_view status token
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
    theorem: TheoremView | None = None
    theorem_in_words: str = ""  # the model's prose statement beside the rendered claim

    @property
    def proved(self) -> bool:
        return self.theorem_status == "proved"

    @property
    def theorem_word(self) -> str:
        return self.theorem.word if self.theorem is not None else self.theorem_status

    @property
    def scope_sentence(self) -> str:
        return self.theorem.scope_sentence if self.theorem is not None else ""

    @property
    def standing(self) -> bool:
        """Every lemma is established at some level (proved, self-reviewed or a narrower claim)."""
        return self.theorem_status in STANDING

    @property
    def theorem_env(self) -> str:
        """theorem for a proved claim (narrower ones too: the claim shown is what was proved),
        claim for a self-reviewed one, conjecture otherwise."""
        if self.theorem_status in ("proved", "narrower_claim", "different_claim"):
            return "theorem"
        return "claim" if self.theorem_status == "self_reviewed" else "conjecture"

    def theorem_tag(self) -> str:
        """The tag in the theorem's head, from the one status function."""
        view = self.theorem
        if view is not None and self.standing:
            return f"{view.word}; weakest level: {view.level_label or self.weakest}"
        return f"not proved: {self.theorem_word}"

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
        head = {"theorem": "Main theorem", "claim": "Main claim (self-reviewed)"}.get(
            self.theorem_env, "Main conjecture"
        )
        rows: list[tuple[str, str, str, str]] = [
            (
                head,
                self.theorem_word,
                self.theorem_level or "--",
                "weakest level of its lemmas" if self.standing else "",
            )
        ]
        rows += [
            (f"Lemma {lem.id}", lem.view.word if lem.view else str(lem.status), str(lem.level or "--"), lem.checks)
            for lem in self.lemmas
        ]
        return rows

    def abstract_suffix(self) -> str:
        """The fixed sentences appended to the model's abstract: what was and was not proved,
        and the weakest verification level, stated by us rather than trusted to the model."""
        established = [lem for lem in self.lemmas if lem.view is not None and lem.view.established]
        total = len(self.lemmas)
        if self.proved:
            return (
                "The main theorem was proved with machine assistance; the weakest verification "
                f"level used by its lemmas is {self.weakest} (see the verification summary)."
            )
        if self.theorem_status in ("narrower_claim", "different_claim"):
            return (
                f"The claim stated as the main theorem was proved (weakest verification level {self.weakest}), "
                f"but it is not the statement this work set out to prove: {self.scope_sentence}. "
                "The statement itself was not proved."
            )
        if self.theorem_status == "self_reviewed":
            ids = ", ".join(self.theorem.self_reviewed) if self.theorem is not None else ""
            return (
                "Every lemma of the main claim has a proof, but "
                + (f"{ids} rest(s) " if ids else "part of it rests ")
                + "only on a review by the model that wrote the proof (self-review); with no independent "
                "check it is stated as a self-reviewed claim, not as a proved theorem."
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
        elif self.theorem_status == "capped":
            head = (
                "The main statement is not proved: its verification level is capped at unverified, so it is "
                "stated as a conjecture."
            )
        else:
            head = (
                "The main statement is not proved here and is presented as a conjecture "
                f"(theory status: {self.theorem_word})."
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


def _checks_summary(checks: list[CheckResult], record: ProofRecord | None = None) -> str:
    parts = [f"{c.checker} {c.verdict}" for c in checks if c.verdict != "skipped"]
    text = "; ".join(parts[:4]) + ("; ..." if len(parts) > 4 else "")
    if record is not None and record.self_review and record.verification_level == "reviewed":
        text += "; self-review"
    if record is not None and record.supporting:
        text += "; supporting only: " + "; ".join(record.supporting)
    return text


def _dag_lemma(theory: TheoryState, plan: CitePlan, lid: str) -> LemmaView:
    node = theory.lemma_dag[lid]
    record = theory.proven_lemmas.get(lid)
    key = plan.resolve(node.citation)
    view = lemma_view(theory, node)
    return LemmaView(
        id=lid,
        label=lemma_label(lid),
        statement=node.statement,
        informal=node.informal,
        status=_PAPER_STATUS.get(view.status, "circular" if view.status == "circular" else "open"),
        view=view,
        level=record.verification_level if record else None,
        proof=record.proof if record else None,
        provenance=node.provenance,
        citation_key=key,
        citation_text="" if key else (node.citation or ""),
        dependencies=[d for d in node.dependencies if d in theory.lemma_dag],
        checks=_checks_summary(record.checks, record) if record else "",
        self_review=bool(record and record.self_review),
    )


def _orphan_lemma(theory: TheoryState, lid: str, record: ProofRecord) -> LemmaView:
    """A lemma proved but missing from the DAG (e.g. after a re-plan): it still appears."""
    view = lemma_view(theory, lid)
    return LemmaView(
        id=lid,
        label=lemma_label(lid),
        statement="",
        informal="",
        status=_PAPER_STATUS.get(view.status, "open"),
        view=view,
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
    lemmas += [
        _orphan_lemma(theory, lid, rec) for lid, rec in theory.proven_lemmas.items() if lid not in theory.lemma_dag
    ]
    return lemmas


def _theorem_proof(theory: TheoryState, root_id: str | None, shown: TheoremView) -> str | None:
    if shown.status not in STANDING:
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
    shown = theorem_view(theory)
    lemmas = _lemma_views(theory, plan, root_id)
    # the theorem shown is the checked root claim, rendered by code; the model's prose beside it
    statement = shown.statement
    proof = _theorem_proof(theory, root_id, shown)
    levels = [r.verification_level for r in theory.proven_lemmas.values()]
    weakest = theory.weakest_level() if theory.proven_lemmas else weakest_level(levels)
    notes: list[str] = []
    prose, proof = _checked_claims(theory, plan, experiment, lemmas, proof, prose, notes)
    records = Records.from_theory(theory)
    words = scrub_proof(shown.in_words, records.theorem, records, "the main theorem", notes, "statement in words")
    return PaperDoc(
        prose=dict(prose),
        theorem=shown,
        theorem_in_words=words or "",
        theorem_statement=statement,
        theorem_status=shown.status,
        theorem_proof=proof,
        theorem_level=weakest if shown.status in STANDING else None,
        assumptions=[a for a in theory.assumptions if a.strip()],
        lemmas=lemmas,
        cite=plan,
        experiment=experiment,
        counterexamples=[c for c in theory.counterexamples if c.confirmed] or list(theory.counterexamples),
        weakest=weakest,
        levels_used=[lvl for lvl in VERIFICATION_ORDER if lvl in set(levels)],
        unproved_assembly=bool(theory.assembled_proof) and shown.status not in STANDING,
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
