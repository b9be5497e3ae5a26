"""Artifacts that flow over the KnowledgeBus and are saved in a session directory.

Models only, no I/O. Every top-level artifact carries `schema_version` so a session written by
an older version still loads; unknown fields are ignored for the same reason.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def utcnow() -> datetime:
    return datetime.now(UTC)


class Model(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class Artifact(Model):
    schema_version: int = 1


# --------------------------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------------------------

VerificationLevel = Literal["formal", "smt", "reviewed", "cited", "unverified"]

# Strongest first. `level_rank` gives a number where higher means stronger.
VERIFICATION_ORDER: tuple[VerificationLevel, ...] = ("formal", "smt", "reviewed", "cited", "unverified")


def level_rank(level: VerificationLevel) -> int:
    return len(VERIFICATION_ORDER) - VERIFICATION_ORDER.index(level)


def weakest_level(levels: list[VerificationLevel]) -> VerificationLevel:
    if not levels:
        return "unverified"
    return min(levels, key=level_rank)


CheckVerdict = Literal["passed", "failed", "unknown", "error", "skipped", "no_checker"]


class ClaimVariable(Model):
    """A variable of a machine-checkable claim and its domain.

    domain: real | positive (x > 0) | nonnegative (x >= 0) | integer | natural (integer >= low,
    low defaults to 0) | interval (low <= x <= high, bounds inclusive unless open_low/open_high).
    """

    name: str
    domain: Literal["real", "positive", "nonnegative", "integer", "natural", "interval"] = "real"
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False


class Claim(Model):
    """A quantitative statement a machine can try to refute or prove.

    `conclusion` is a relation in the claim language (docs/verification.md), e.g.
    "(a + b)/2 >= sqrt(a*b)"; `assumptions` are relations that restrict the variables.
    """

    variables: list[ClaimVariable] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    conclusion: str


class CheckResult(Model):
    """What one checker said about one lemma (or its claim)."""

    checker: str  # "falsifier", "z3", "cvc5", "coq", "lean", "llm_review", "citation"
    verdict: CheckVerdict
    detail: str = ""
    version: str | None = None
    counterexample: dict[str, Any] | None = None
    seconds: float | None = None
    # An independent re-check of a passed proof (e.g. "coqchk 8.16.1"); None when none ran.
    rechecked_by: str | None = None


class Counterexample(Model):
    """A point (or, from the Experiment stage, a simulated instance) where a statement fails.

    `statement` and `claim` keep what was refuted, so a re-plan, its prover and its reviewer can
    be shown it and every later claim can be re-checked at `assignment`."""

    lemma_id: str
    assignment: dict[str, Any] = Field(default_factory=dict)
    description: str = ""
    checker: str = ""
    confirmed: bool = False
    violation: float | None = None
    statement: str = ""
    claim: Claim | None = None
    found_at: datetime = Field(default_factory=utcnow)


# --------------------------------------------------------------------------------------------
# Theory
# --------------------------------------------------------------------------------------------

Provenance = Literal["known", "adapted", "new"]
LemmaStatus = Literal["pending", "in_progress", "proved", "failed", "refuted"]
# contradicted: an experiment violated a bound the theorem claims (beyond its statistical
# tolerance), so the theorem cannot stand as proved whatever its lemmas' levels say.
# self_reviewed: every lemma is proven and the assembly passed, but the weakest support is a review
# by the model that wrote the proof; `proved` needs machine checks, citations or an independent
# review. Sessions written before this status existed still load (their "proved" is re-derived
# for display by theory_view.theorem_view).
TheoryStatus = Literal["pending", "in_progress", "proved", "self_reviewed", "refuted", "contradicted", "abandoned"]
# How a lemma's displayed statement came about: "claim" = rendered by code from its claim, so the
# reader sees exactly what a checker checked; "prose" = the model's LaTeX, which may say more.
StatementSource = Literal["prose", "claim"]
ErrorCategory = Literal[
    "gap",
    "invalid_step",
    "missing_case",
    "wrong_assumption",
    "bound_too_loose",
    "circular",
    "counterexample",
    "mechanical_check",
    "formal_check",
    "unparseable",
    "other",
]


class KnownResult(Model):
    statement: str
    assumptions: list[str] = Field(default_factory=list)
    source: str = ""  # paper id / cite key
    location: str = ""  # where in the paper (section, theorem number)


class ProofPlan(Model):
    """One item of the proof plan, labelled with where its argument comes from."""

    id: str
    description: str
    provenance: Provenance = "new"
    citation: str | None = None
    lemma_ids: list[str] = Field(default_factory=list)


class LemmaNode(Model):
    id: str
    statement: str  # LaTeX
    informal: str = ""
    provenance: Provenance = "new"
    citation: str | None = None  # paper id / cite key for known results
    dependencies: list[str] = Field(default_factory=list)
    claim: Claim | None = None
    is_root: bool = False
    status: LemmaStatus = "pending"
    parent: str | None = None  # set when the lemma was split out of another one
    statement_source: StatementSource = "prose"
    prose: str = ""  # the model's own statement when `statement` was rendered from the claim
    claim_flags: list[str] = Field(default_factory=list)  # why the claim earns no mechanical level
    replaces: str | None = None  # the refuted lemma this one stands in for after a re-plan


class SelfAssessment(Model):
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    gaps: list[str] = Field(default_factory=list)
    weakest_step: str = ""


class ProofRecord(Model):
    lemma_id: str
    proof: str
    verification_level: VerificationLevel
    checks: list[CheckResult] = Field(default_factory=list)
    attempts: int = 1
    self_assessment: SelfAssessment | None = None
    review_confidence: float | None = None
    formal_proof: str | None = None
    # Who reviewed: "<backend>:<model>"; self_review when that is the model that wrote the proof.
    reviewer: str = ""
    self_review: bool = False
    # Mechanical evidence that did not set the level (the claim was checked, but the lemma's
    # statement says more than its claim, or the claim was flagged as trivial).
    supporting: list[str] = Field(default_factory=list)
    level_note: str = ""
    created_at: datetime = Field(default_factory=utcnow)


class FailedAttempt(Model):
    lemma_id: str
    attempt: int
    proof: str = ""
    error_category: ErrorCategory = "other"
    verifier_text: str = ""
    checks: list[CheckResult] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)


ScopeRelation = Literal["same", "narrower", "differs", "unknown"]


class StatementScope(Model):
    """How the proved root claim relates to the user's statement, decided by code
    (verify/claim_match.py) from the root claim and the statement's own claim.

    relation: same (the root claim covers the statement's claim) | narrower (it assumes more:
    an assumption, a smaller domain, a definedness condition; `witness` is a point the statement
    covers and the root claim does not) | differs (another conclusion, another constant, other
    variables) | unknown (no statement claim, one that does not parse, or a difference with no
    witness found). Anything but "same" means the statement itself was not proved.
    `sentence` is generated, e.g. "proved for x ≥ 1; the statement asked for every real x; the
    statement is false at x = 1/2"."""

    relation: ScopeRelation
    sentence: str
    statement_claim: Claim | None = None
    differences: list[str] = Field(default_factory=list)  # each hypothesis or conclusion that differs
    witness: dict[str, str] = Field(default_factory=dict)  # statement variable -> exact value
    statement_fails_at_witness: bool = False  # the statement's own conclusion fails at the witness


class TheoryState(Artifact):
    informal_statement: str = ""
    formal_statement: str = ""
    assumptions: list[str] = Field(default_factory=list)
    known_results: list[KnownResult] = Field(default_factory=list)
    research_gap: str = ""
    proof_plan: list[ProofPlan] = Field(default_factory=list)
    lemma_dag: dict[str, LemmaNode] = Field(default_factory=dict)
    proven_lemmas: dict[str, ProofRecord] = Field(default_factory=dict)
    open_goals: list[str] = Field(default_factory=list)
    failed_attempts: list[FailedAttempt] = Field(default_factory=list)
    counterexamples: list[Counterexample] = Field(default_factory=list)
    assembled_proof: str | None = None
    consistency_check: CheckResult | None = None
    status: TheoryStatus = "pending"
    status_reason: str = ""
    replans: int = 0
    notes: list[str] = Field(default_factory=list)  # what the engine changed or dropped, and why
    formalized_dag: dict[str, LemmaNode] = Field(default_factory=dict)  # the DAG a fresh theory run restarts from
    # Reasons the theorem's level is capped at "unverified" whatever its lemmas reached (e.g. a
    # refuted lemma was replaced by one without a claim). Non-empty blocks "proved".
    level_cap_reasons: list[str] = Field(default_factory=list)
    # Bound checks of the Experiment stage that the theorem's claims failed (status contradicted).
    contradictions: list[str] = Field(default_factory=list)
    contradiction_replans: int = 0
    # The root claim against the user's statement (None: the root lemma has no claim).
    statement_scope: StatementScope | None = None

    def root_id(self) -> str | None:
        roots = [n.id for n in self.lemma_dag.values() if n.is_root]
        return roots[0] if len(roots) == 1 else None

    def weakest_level(self) -> VerificationLevel:
        if self.level_cap_reasons:
            return "unverified"
        return weakest_level([r.verification_level for r in self.proven_lemmas.values()])


# --------------------------------------------------------------------------------------------
# Literature
# --------------------------------------------------------------------------------------------

CitationStatus = Literal["verified", "suspicious", "not_found", "unverified"]


class Paper(Model):
    """A bibliography entry. `sources` says where its metadata came from."""

    paper_id: str  # stable key: "doi:…", "arxiv:…", "s2:…", "openalex:…"
    title: str
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    abstract: str = ""
    venue: str = ""
    doi: str | None = None
    arxiv_id: str | None = None
    s2_id: str | None = None
    openalex_id: str | None = None
    url: str | None = None
    citation_count: int | None = None
    sources: list[str] = Field(default_factory=list)
    verification: CitationStatus = "unverified"
    verification_detail: str = ""
    similarity: float | None = None
    cite_key: str | None = None
    relevant: bool = True


class Bibliography(Artifact):
    papers: list[Paper] = Field(default_factory=list)
    checks_ran: bool = False  # False when offline: nothing could be verified


class PaperSummary(Model):
    paper_id: str
    summary: str
    known_results: list[KnownResult] = Field(default_factory=list)


class ResearchDirection(Model):
    title: str
    statement: str
    rationale: str = ""
    novelty: float = Field(default=0.0, ge=0.0, le=1.0)
    soundness: float = Field(default=0.0, ge=0.0, le=1.0)
    transformative: float = Field(default=0.0, ge=0.0, le=1.0)
    composite: float = 0.0


class DroppedDirection(Model):
    """An `explore` direction that was given up (its theory ended abandoned, refuted or
    contradicted) before the next scored direction took over; its sub-run's files are kept
    under `archive` (relative to the session directory)."""

    version: int
    title: str
    statement: str
    composite: float = 0.0
    outcome: str  # the theory status it ended with
    reason: str = ""
    archive: str = ""


class ResearchBrief(Artifact):
    domain: str = ""
    query: str = ""
    requested_ids: list[str] = Field(default_factory=list)
    missing_ids: list[str] = Field(default_factory=list)
    summaries: list[PaperSummary] = Field(default_factory=list)
    known_results: list[KnownResult] = Field(default_factory=list)
    gap_analysis: str = ""
    directions: list[ResearchDirection] = Field(default_factory=list)
    selected_direction: ResearchDirection | None = None
    dropped_directions: list[DroppedDirection] = Field(default_factory=list)  # explore pivots, in order
    unavailable_sources: list[str] = Field(default_factory=list)
    offline: bool = False
    notes: list[str] = Field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Experiment, paper, evaluation
# --------------------------------------------------------------------------------------------


class BoundCheck(Model):
    name: str
    horizon: int
    empirical_mean: float
    std_error: float
    quantiles: dict[str, float] = Field(default_factory=dict)
    theoretical: float
    held: bool
    margin: float | None = None
    # True when the bound comes from the theorem itself (not the domain's default spec), so a
    # failure is evidence against the theorem.
    from_theorem: bool = False


class RequiredCheck(Model):
    """A theorem bound an experiment violated, kept as a check every later experiment on the
    same statement re-runs from the stored measurement, whatever its own spec says
    (agents/experiment/violations.py)."""

    statement: str  # TheoryState.informal_statement it was found for
    formal_statement: str = ""
    root_claim: Claim | None = None
    bound: str
    series: str = ""
    instance: str = ""
    expression: str = ""  # the bound as the violated spec wrote it
    direction: Literal["upper", "lower"] = "upper"
    variables: dict[str, float | None] = Field(default_factory=dict)
    check: BoundCheck
    line: str = ""  # the violation line when it was found


class ExperimentResult(Artifact):
    status: Literal["completed", "skipped", "failed"] = "completed"
    reason: str = ""
    domain: str = ""
    spec: dict[str, Any] = Field(default_factory=dict)
    bound_checks: list[BoundCheck] = Field(default_factory=list)
    rate_fits: list[dict[str, Any]] = Field(default_factory=list)
    claim_violation_rates: dict[str, float] = Field(default_factory=dict)
    alignment_score: float | None = None
    plot_csv: str | None = None  # file name inside the session directory
    notes: list[str] = Field(default_factory=list)
    # One line per bound of the theorem that the simulation violated beyond its statistical
    # tolerance (the 99% one-sided limit): evidence that blocks "proved".
    violations: list[str] = Field(default_factory=list)
    # Violated bounds of earlier experiments on the same statement, re-checked in this one.
    required_checks: list[RequiredCheck] = Field(default_factory=list)


class PaperOutput(Artifact):
    tex_file: str | None = None
    md_file: str | None = None
    bib_file: str | None = None
    pdf_file: str | None = None
    compiled: bool = False
    compile_error: str = ""
    # Why no compilation was tried (no LaTeX toolchain, no working TeX sandbox): not a failure
    compile_skipped: str = ""
    notes: list[str] = Field(default_factory=list)
    weakest_level: VerificationLevel = "unverified"


class EvalDimension(Model):
    name: str
    score: float | None  # None: not applicable
    weight: float
    inputs: dict[str, Any] = Field(default_factory=dict)
    explanation: str = ""


class EvalReport(Artifact):
    session_id: str
    dimensions: list[EvalDimension] = Field(default_factory=list)
    total: float = 0.0
    notes: list[str] = Field(default_factory=list)
    # the paper version scored (1: the writer's paper.tex; n: review's paper_v<n>); None: a report
    # written before versions were recorded
    paper_version: int | None = None
    created_at: datetime = Field(default_factory=utcnow)
