"""The one place where evidence becomes a level: a lemma's (`decide_level`) and the theorem's
status word (`theorem_gaps`, `theorem_verdict`). Pure functions of the records, table-tested.

A lemma's level, strongest first:
- `formal` / `smt` when a proof assistant / an SMT solver proved the lemma's claim, the claim was
  not refuted, the lemma's statement *is* that claim (rendered from it) and the claim is not
  flagged as trivial. A claim that is an instance of one of the solver's own axioms is `cited`:
  the solver was handed that very statement, so its proof is a look-up (verify/axiom_sources.py).
- `cited` for a known result whose citation was verified in the bibliography.
- `reviewed` when the review passed and the reviewing model's word counts as evidence.
- `unverified` otherwise — also, failing closed, whenever a check of the claim failed.
A passing check that does not set the level is kept as supporting evidence, saying why.

The theorem is `proved` only when every lemma it uses is proven at `cited` or above, nothing caps
its level and the assembled proof passed its consistency check; when some lemma's only support is
a review by the model that wrote its proof, the word is `self_reviewed`, never `proved`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from eurekaclaw.types.artifacts import (
    CheckResult,
    LemmaNode,
    ProofRecord,
    TheoryState,
    VerificationLevel,
    level_rank,
    weakest_level,
)

WEAK_REVIEWER_NOTE = "the review came from a model too weak to count as evidence"


@dataclass(frozen=True)
class ReviewEvidence:
    """An LLM review of one proof: whether it passed and whether its word counts as evidence
    (a model too weak to judge proofs cannot lift a lemma to `reviewed`)."""

    passed: bool
    counts: bool


@dataclass(frozen=True)
class LevelDecision:
    level: VerificationLevel
    supporting: list[str] = field(default_factory=list)  # checked, but not the level, and why
    note: str = ""


def mechanical_decision(node: LemmaNode, checks: list[CheckResult]) -> LevelDecision | None:
    """What the checkers' results are worth for this lemma: a level (formal, smt, or cited for
    an axiom instance), supporting evidence only (with the reason), or None when no checker
    proved the claim."""
    from eurekaclaw.agents.theory.mechanical import level_checker_names
    from eurekaclaw.verify import mechanical_level

    level = mechanical_level(checks) if checks else None
    if level not in ("formal", "smt"):
        return None
    names = level_checker_names()
    passed = sorted({names[c.checker] for c in checks if c.verdict == "passed" and c.checker in names})
    evidence = f"claim checked by {' and '.join(passed)}"
    if node.claim_flags:
        why = "the claim is too trivial to verify the lemma: " + "; ".join(node.claim_flags)
        return LevelDecision("unverified", [f"{evidence} ({why})"], why)
    if node.statement_source != "claim":
        why = "the lemma's statement says more than its claim"
        return LevelDecision("unverified", [f"{evidence}; {why}, so that is supporting evidence only"], why)
    if level == "smt":
        from eurekaclaw.verify.axiom_sources import axiom_instance

        axiom = axiom_instance(node.claim)
        if axiom is not None:
            why = f"the claim is an instance of the SMT axiom {axiom}"
            return LevelDecision("cited", [f"{evidence} ({why})"], why)
    return LevelDecision(level)


def decide_level(
    node: LemmaNode,
    checks: list[CheckResult],
    *,
    review: ReviewEvidence | None = None,
    citation: CheckResult | None = None,
) -> LevelDecision:
    """The level of one proven lemma from its claim's checks, its review and its citation.
    A failed check of the claim (a refutation included) leaves nothing to stand on: unverified.
    A rejected formal proof is not such a check: it is evidence about the Coq text, not the
    mathematics (optional evidence adds, never vetoes)."""
    from eurekaclaw.agents.theory.formal_attempt import is_formal

    failed = [c for c in checks if c.verdict == "failed" and not is_formal(c)]
    if failed:
        names = ", ".join(sorted({c.checker for c in failed}))
        return LevelDecision("unverified", [], f"a check of the claim failed ({names})")
    mech = mechanical_decision(node, checks)
    if mech is not None and mech.level != "unverified":
        return mech
    supporting, note = (mech.supporting, mech.note) if mech is not None else ([], "")
    if citation is not None and citation.verdict == "passed":
        return LevelDecision("cited", supporting, note)
    if review is not None and review.passed:
        if review.counts:
            return LevelDecision("reviewed", supporting, note)
        return LevelDecision("unverified", supporting, "; ".join(filter(None, [note, WEAK_REVIEWER_NOTE])))
    return LevelDecision("unverified", supporting, "; ".join(filter(None, [note, "no review passed"])))


# --- the theorem ------------------------------------------------------------------------------


def theorem_gaps(state: TheoryState, active: set[str]) -> str | None:
    """Why the theorem cannot be proved whatever its assembly says (then it is `abandoned`),
    or None: a lemma it uses is not proven, is below `cited`, or its level is capped."""
    missing = sorted(lid for lid in active if lid not in state.proven_lemmas)
    if missing:
        why = []
        for lid in missing:
            status = state.lemma_dag[lid].status if lid in state.lemma_dag else "missing"
            why.append(f"{lid} ({'blocked' if status == 'pending' else status})")
        return "not every lemma was proven: " + ", ".join(why)
    weak = sorted(
        lid for lid in active if level_rank(state.proven_lemmas[lid].verification_level) < level_rank("cited")
    )
    if weak:
        return "lemmas below level 'cited': " + ", ".join(weak)
    if state.level_cap_reasons:
        return "the theorem's level is capped at unverified: " + "; ".join(state.level_cap_reasons)
    return None


def self_reviewed_only(records: list[ProofRecord]) -> list[str]:
    """Lemmas whose only support is a review by the model that wrote their proof."""
    return sorted(r.lemma_id for r in records if r.self_review and r.verification_level == "reviewed")


@dataclass(frozen=True)
class TheoremVerdict:
    status: Literal["proved", "self_reviewed"]
    reason: str
    weakest: VerificationLevel
    self_reviewed: list[str]


def theorem_verdict(state: TheoryState, active: set[str]) -> TheoremVerdict:
    """The theorem's word once `theorem_gaps` found nothing and the assembled proof passed its
    consistency check."""
    records = [state.proven_lemmas[lid] for lid in sorted(active)]
    selfs = self_reviewed_only(records)
    weakest = weakest_level([r.verification_level for r in records])
    reason = (
        f"all {len(active)} lemmas proven (weakest level: {weakest}); the assembled proof passed its consistency check"
    )
    return TheoremVerdict("self_reviewed" if selfs else "proved", reason, weakest, selfs)
