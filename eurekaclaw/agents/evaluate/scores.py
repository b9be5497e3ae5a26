"""The mechanical Scientist-Bench dimensions: formal correctness, experimental alignment, proof
depth and citation coverage (novelty, which needs embeddings and a model, is in novelty.py).

Each function returns an EvalDimension whose `inputs` hold every number that produced the
score, so a report can be recomputed by hand. docs/paper-and-evaluation.md gives the formulas
and the reasons for the constants below.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.agents.learn.trust import review_kind
from eurekaclaw.theory_view import circular_citation, theorem_view
from eurekaclaw.types.artifacts import (
    Bibliography,
    EvalDimension,
    ExperimentResult,
    ProofRecord,
    TheoryState,
)

# Per-lemma credit by verification level. Monotone in the strength order of DESIGN.md §3
# (formal > smt > reviewed > cited > unverified), so a stronger check never scores lower.
# smt is just below formal because the solver proved the lemma's *claim* (its formalisation
# into the claim language), not the LaTeX statement itself; reviewed means no machine proof;
# cited is a verified reference whose applicability was judged by a model; unverified keeps a
# token credit because the lemma was at least recorded with a proof.
LEVEL_SCORES: dict[str, float] = {
    "formal": 1.0,
    "smt": 0.9,
    "reviewed": 0.6,
    "cited": 0.5,
    "unverified": 0.1,
}
# A review by the model that wrote the proof (or one whose reviewer was not recorded, so its
# independence cannot be shown) is no evidence of correctness: the same blind spots wrote and
# checked the proof. Such a lemma is not a proven lemma here (DESIGN §3), nor is one whose proof
# cites a lemma that relies on it (circular).
SELF_REVIEW_SCORE = 0.0
OPEN_LEMMA_SCORE = 0.0  # a lemma in the DAG that was never proved
# The theorem's status caps the score: an unproved theorem cannot be more than half correct,
# an abandoned one less, and a refuted one (the statement is false as stated) or one an
# experiment contradicted (a claimed bound failed in simulation) almost nothing.
STATUS_CAPS: dict[str, float] = {
    "proved": 1.0,
    # a self-reviewed theorem, or a proved claim narrower than (or other than) the statement:
    # the statement itself is not proved
    "self_reviewed": 0.5,
    "narrower_claim": 0.5,
    "different_claim": 0.5,
    "in_progress": 0.5,
    "pending": 0.5,
    "abandoned": 0.3,
    "refuted": 0.1,
    "contradicted": 0.1,
}
# The theorem's level was capped (e.g. a refuted lemma replaced by one nothing checks): its
# lemma levels do not carry over to the theorem, whatever they are.
LEVEL_CAP_CAP = 0.3
# An experiment violated a bound of the theorem beyond its statistical tolerance: the theory
# and the simulation disagree, so the alignment cannot be more than this.
VIOLATION_CAP = 0.2
# Proof depth counts a lemma without mechanical or independent evidence at this fraction:
# structure built from unchecked steps is not yet an argument.
WEAK_LEMMA_DEPTH_CREDIT = 0.5
# Proof depth saturates at this many proven lemmas and this longest chain of proven lemmas.
DEPTH_SIZE_SATURATION = 8
DEPTH_CHAIN_SATURATION = 4

NAMES = (
    "formal_correctness",
    "novelty",
    "experimental_alignment",
    "proof_depth",
    "citation_coverage",
)


def lemma_score(record: ProofRecord, circular: bool = False) -> tuple[float, str]:
    """(score, how it was checked) of one proven lemma."""
    if circular:
        return OPEN_LEMMA_SCORE, "circular proof"
    kind = review_kind(record)
    level = record.verification_level
    if kind in ("self", "unknown"):
        return SELF_REVIEW_SCORE, "self-review" if kind == "self" else "reviewer not recorded"
    return LEVEL_SCORES[level], kind


def _checked_summary(per_lemma: dict[str, dict[str, object]]) -> str:
    """e.g. "2 formal, 6 reviewed by self-review, 1 not proved"."""
    counts: dict[str, int] = {}
    for v in per_lemma.values():
        if v["level"] is None:
            key = "not proved"
        elif v["checked_by"] in ("self-review", "reviewer not recorded"):
            key = f"{v['level']} by {v['checked_by']}"
        elif v["checked_by"] == "independent" and v["level"] == "reviewed":
            key = "reviewed by an independent model"
        else:
            key = str(v["level"])
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in counts.items())


def correctness_cap(theory: TheoryState) -> tuple[float, str]:
    """The highest correctness the theorem's outcome allows, and why: the status every surface
    shows (theory_view), so a self-reviewed theorem is never scored as proved."""
    view = theorem_view(theory)
    cap = STATUS_CAPS.get(view.status, 0.5)
    why = f"the theorem is {view.word}"
    if theory.contradictions and cap > STATUS_CAPS["contradicted"]:
        cap, why = STATUS_CAPS["contradicted"], "an experiment contradicted the theorem"
    if theory.level_cap_reasons and cap > LEVEL_CAP_CAP:
        cap, why = LEVEL_CAP_CAP, "the theorem's level is capped: " + "; ".join(theory.level_cap_reasons[:2])
    return cap, why


def formal_correctness(theory: TheoryState | None, weight: float) -> EvalDimension:
    name = "formal_correctness"
    if theory is None:
        return EvalDimension(name=name, score=0.0, weight=weight, explanation="no theory state: nothing was proved")
    ids = list(dict.fromkeys([*theory.lemma_dag, *theory.proven_lemmas]))
    per_lemma: dict[str, dict[str, Any]] = {}
    for lid in ids:
        record = theory.proven_lemmas.get(lid)
        if record is None:
            per_lemma[lid] = {"level": None, "checked_by": None, "score": OPEN_LEMMA_SCORE}
        else:
            score, checked_by = lemma_score(record, circular_citation(theory, lid) is not None)
            per_lemma[lid] = {"level": record.verification_level, "checked_by": checked_by, "score": score}
            if record.reviewer:
                per_lemma[lid]["reviewer"] = record.reviewer
    mean = sum(float(v["score"]) for v in per_lemma.values()) / len(per_lemma) if per_lemma else 0.0
    cap, why = correctness_cap(theory)
    score = min(mean, cap)
    self_reviewed = sum(1 for v in per_lemma.values() if v["checked_by"] in ("self-review", "reviewer not recorded"))
    if per_lemma:
        explanation = f"mean per-lemma score {mean:.3f} over {len(per_lemma)} lemma(s) ({_checked_summary(per_lemma)})"
        if self_reviewed:
            explanation += (
                f"; {self_reviewed} self-reviewed lemma(s) count {SELF_REVIEW_SCORE} instead of "
                f"{LEVEL_SCORES['reviewed']}: not proven (the model that wrote the proof checked it)"
            )
        if mean > cap:
            explanation += f"; capped at {cap} because {why}"
    else:
        explanation = "no lemmas in the theory state"
    return EvalDimension(
        name=name,
        score=round(score, 6),
        weight=weight,
        inputs={
            "lemmas": per_lemma,
            "level_scores": LEVEL_SCORES,
            "self_review_score": SELF_REVIEW_SCORE,
            "open_lemma_score": OPEN_LEMMA_SCORE,
            "mean_level_score": round(mean, 6),
            "self_reviewed_lemmas": self_reviewed,
            "theorem_status": theory.status,
            "level_cap_reasons": list(theory.level_cap_reasons),
            "contradictions": list(theory.contradictions),
            "status_cap": cap,
        },
        explanation=explanation,
    )


def experimental_alignment(
    result: ExperimentResult | None, weight: float, theory: TheoryState | None = None
) -> EvalDimension:
    name = "experimental_alignment"
    if result is None:
        return EvalDimension(name=name, score=None, weight=weight, explanation="not applicable: no experiment was run")
    if result.status != "completed":
        reason = f": {result.reason}" if result.reason else ""
        return EvalDimension(
            name=name,
            score=None,
            weight=weight,
            inputs={"experiment_status": result.status},
            explanation=f"not applicable: the experiment {result.status}{reason}",
        )
    if result.spec.get("source") == "default":
        # The designer's spec was unusable, so the run checked the domain's reference bound,
        # which says nothing about how well this session's theorem matches simulation.
        return EvalDimension(
            name=name,
            score=None,
            weight=weight,
            inputs={"experiment_status": result.status, "spec_source": "default"},
            explanation="not applicable: the experiment fell back to the domain's default spec, not this theorem's bounds",
        )
    parts: list[float] = []
    inputs: dict[str, object] = {"experiment_status": result.status}
    if result.bound_checks:
        held = sum(1 for c in result.bound_checks if c.held)
        inputs["bound_checks"] = [
            {
                "name": c.name,
                "horizon": c.horizon,
                "empirical": c.empirical_mean,
                "theoretical": c.theoretical,
                "held": c.held,
            }
            for c in result.bound_checks
        ]
        inputs["held_fraction"] = held / len(result.bound_checks)
        parts.append(held / len(result.bound_checks))
    if result.claim_violation_rates:
        rates = list(result.claim_violation_rates.values())
        inputs["claim_violation_rates"] = dict(result.claim_violation_rates)
        inputs["claims_holding"] = 1.0 - sum(rates) / len(rates)
        parts.append(1.0 - sum(rates) / len(rates))
    if not parts:
        return EvalDimension(
            name=name,
            score=None,
            weight=weight,
            inputs=inputs,
            explanation="not applicable: the experiment checked no bound and no claim",
        )
    score = sum(parts) / len(parts)
    bits = []
    if "held_fraction" in inputs:
        held = sum(1 for c in result.bound_checks if c.held)
        bits.append(f"{held}/{len(result.bound_checks)} bound checks held ({inputs['held_fraction']:.3f})")
    if "claims_holding" in inputs:
        bits.append(f"mean claim non-violation {inputs['claims_holding']:.3f}")
    violations = list(result.violations)
    contradicted = theory is not None and theory.status == "contradicted"
    inputs["violations"] = violations
    inputs["theorem_contradicted"] = contradicted
    if (violations or contradicted) and score > VIOLATION_CAP:
        score = VIOLATION_CAP
        why = (
            f"{len(violations)} bound(s) of the theorem violated beyond statistical tolerance"
            if violations
            else "the theorem is contradicted by the experiment"
        )
        bits.append(f"capped at {VIOLATION_CAP}: {why}")
    elif violations or contradicted:
        bits.append(f"{len(violations)} violation(s) of the theorem's bounds" if violations else "theorem contradicted")
    inputs["violation_cap"] = VIOLATION_CAP
    return EvalDimension(name=name, score=round(score, 6), weight=weight, inputs=inputs, explanation="; ".join(bits))


def _longest_chain(ids: set[str], deps: dict[str, list[str]]) -> int:
    """Nodes on the longest dependency chain inside `ids` (cycle-safe)."""
    memo: dict[str, int] = {}

    def walk(node: str, stack: frozenset[str]) -> int:
        if node in memo:
            return memo[node]
        best = 0
        for dep in deps.get(node, []):
            if dep in ids and dep not in stack:
                best = max(best, walk(dep, stack | {node}))
        memo[node] = best + 1
        return best + 1

    return max((walk(n, frozenset()) for n in ids), default=0)


def proof_depth(theory: TheoryState | None, weight: float) -> EvalDimension:
    name = "proof_depth"
    if theory is None:
        return EvalDimension(name=name, score=0.0, weight=weight, explanation="no theory state")
    proven = set(theory.proven_lemmas)
    deps = {lid: list(node.dependencies) for lid, node in theory.lemma_dag.items()}
    chain = _longest_chain(proven, deps)
    weak = sorted(
        lid for lid, rec in theory.proven_lemmas.items() if review_kind(rec) not in ("mechanical", "independent")
    )
    self_reviewed = sum(1 for lid in weak if review_kind(theory.proven_lemmas[lid]) in ("self", "unknown"))
    credited = len(proven) - len(weak) + WEAK_LEMMA_DEPTH_CREDIT * len(weak)
    size_part = min(1.0, credited / DEPTH_SIZE_SATURATION)
    chain_part = min(1.0, chain / DEPTH_CHAIN_SATURATION)
    score = 0.5 * size_part + 0.5 * chain_part
    return EvalDimension(
        name=name,
        score=round(score, 6),
        weight=weight,
        inputs={
            "proven_lemmas": len(proven),
            "weak_lemmas": weak,
            "weak_lemma_credit": WEAK_LEMMA_DEPTH_CREDIT,
            "credited_lemmas": credited,
            "dag_lemmas": len(theory.lemma_dag),
            "longest_proven_chain": chain,
            "size_saturation": DEPTH_SIZE_SATURATION,
            "chain_saturation": DEPTH_CHAIN_SATURATION,
            "size_part": round(size_part, 6),
            "chain_part": round(chain_part, 6),
        },
        explanation=f"{len(proven)} proven lemma(s), longest proven chain {chain}"
        + (
            f"; {len(weak)} without independent check"
            + (f" ({self_reviewed} self-review(s))" if self_reviewed else "")
            + f" counted {WEAK_LEMMA_DEPTH_CREDIT} each"
            if weak
            else ""
        ),
    )


def citation_coverage(
    bib: Bibliography | None,
    keys: dict[str, str],
    cited: set[str] | None,
    weight: float,
) -> EvalDimension:
    """keys: paper_id -> cite key (as the writer assigns them); cited: keys the paper cites,
    None when no paper was written."""
    name = "citation_coverage"
    relevant = [p for p in (bib.papers if bib else []) if p.relevant and p.verification != "not_found"]
    if not relevant:
        return EvalDimension(
            name=name, score=None, weight=weight, explanation="not applicable: no relevant surveyed papers"
        )
    cited_set = cited or set()
    covered = [p for p in relevant if p.verification == "verified" and keys.get(p.paper_id) in cited_set]
    score = len(covered) / len(relevant)
    explanation = f"{len(covered)} of {len(relevant)} relevant surveyed papers are verified and cited"
    if cited is None:
        explanation += " (no paper was written, so nothing is cited)"
    return EvalDimension(
        name=name,
        score=round(score, 6),
        weight=weight,
        inputs={
            "relevant_papers": len(relevant),
            "verified_relevant": sum(1 for p in relevant if p.verification == "verified"),
            "verified_and_cited": [p.paper_id for p in covered],
            "cited_keys": sorted(cited_set),
            "paper_written": cited is not None,
        },
        explanation=explanation,
    )


def weighted_total(dimensions: list[EvalDimension]) -> tuple[float, list[str]]:
    """Weighted mean over the applicable dimensions (weights renormalised over them)."""
    applicable = [d for d in dimensions if d.score is not None]
    total_weight = sum(d.weight for d in applicable)
    notes = []
    skipped = [d.name for d in dimensions if d.score is None]
    if skipped:
        notes.append(
            "not applicable: "
            + ", ".join(skipped)
            + f"; weights renormalised over the other {len(applicable)} dimension(s)"
        )
    for d in dimensions:
        d.inputs["effective_weight"] = (
            round(d.weight / total_weight, 6) if (d.score is not None and total_weight) else 0.0
        )
    if total_weight <= 0:
        return 0.0, notes + ["no applicable dimension with a positive weight"]
    total = sum(d.weight * (d.score or 0.0) for d in applicable) / total_weight
    return round(total, 6), notes
