"""How far a session's results can be trusted by the next session.

A result is *established* when a machine checked it (formal, smt), or an independent model
reviewed it (reviewed) or its citation was verified (cited) — and the session did not end with
its theorem refuted, contradicted by an experiment or abandoned. Anything else is stored, but as
unverified: a self-review (the model that wrote the proof also reviewed it) is not evidence a
later prover should build on. The Learn stage and the Evaluate stage share these rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from eurekaclaw.types.artifacts import ProofRecord, TheoryState, TheoryStatus, VerificationLevel
from eurekaclaw.types.memory import FALSE_OUTCOMES, MECHANICAL_LEVELS, UNESTABLISHED_OUTCOMES

ReviewKind = Literal["mechanical", "independent", "self", "unknown", "unchecked"]

OUTCOME_REASONS = {
    "contradicted": "an experiment violated a bound the theorem claims",
    "refuted": "the statement was refuted",
    "abandoned": "the proof was abandoned",
}


def review_kind(record: ProofRecord) -> ReviewKind:
    """What stands behind a proof record's level.

    mechanical: formal/smt; independent: reviewed by another model, or a verified citation;
    self: the model that wrote the proof reviewed it; unknown: reviewed, but the reviewer was
    not recorded (sessions from before reviewers were), so independence cannot be shown;
    unchecked: level unverified."""
    level = record.verification_level
    if level in MECHANICAL_LEVELS:
        return "mechanical"
    if level == "unverified":
        return "unchecked"
    if record.self_review:
        return "self"
    if level == "reviewed" and not record.reviewer:
        return "unknown"
    return "independent"


def counts_as_independent(record: ProofRecord) -> bool:
    return review_kind(record) in ("mechanical", "independent")


@dataclass(frozen=True)
class Trust:
    established: bool
    claimed_level: VerificationLevel  # what the session recorded
    session_status: TheoryStatus
    self_reviewed: bool = False
    note: str = ""  # why it is not established ("" when it is)

    @property
    def level(self) -> VerificationLevel:
        """The level later sessions may rely on."""
        return self.claimed_level if self.established else "unverified"


def outcome_note(state: TheoryState) -> str:
    """Why the session's outcome alone keeps its results unestablished ("" when it does not)."""
    if state.status not in UNESTABLISHED_OUTCOMES:
        return ""
    why = OUTCOME_REASONS.get(state.status, state.status)
    detail = "; ".join(state.contradictions[:2]) if state.status == "contradicted" else state.status_reason
    return f"the session ended {state.status} ({why}{': ' + detail if detail else ''})"


def _record_note(record: ProofRecord) -> str:
    return {
        "self": "only self-reviewed (the model that wrote the proof reviewed it)",
        "unknown": "the reviewer was not recorded",
        "unchecked": "nothing checked it",
    }.get(review_kind(record), "")


def lemma_trust(state: TheoryState, lemma_id: str, record: ProofRecord) -> Trust:
    node = state.lemma_dag.get(lemma_id)
    is_root = bool(node and node.is_root)
    self_reviewed = review_kind(record) == "self"

    def trust(established: bool, note: str = "") -> Trust:
        return Trust(established, record.verification_level, state.status, self_reviewed, note)

    if state.status in UNESTABLISHED_OUTCOMES:
        return trust(False, outcome_note(state))
    if is_root and state.status != "proved":
        return trust(False, f"the theorem is not proved (status {state.status})")
    if is_root and state.level_cap_reasons:
        return trust(False, "the theorem's level is capped: " + "; ".join(state.level_cap_reasons[:2]))
    if not counts_as_independent(record):
        return trust(False, _record_note(record))
    return trust(True)


@dataclass(frozen=True)
class SessionTrust(Trust):
    weak_lemmas: list[str] = field(default_factory=list)  # lemmas without independent evidence

    @property
    def shown_false(self) -> bool:
        """A claim of the session was shown false: nothing it proved may be learned from."""
        return self.session_status in FALSE_OUTCOMES

    def describe(self) -> str:
        """A sentence for the Learn prompts."""
        if self.established:
            return (
                f"The theorem was proved and every lemma was checked mechanically or by an "
                f"independent review; the weakest level is {self.claimed_level}."
            )
        return f"The session's result is NOT established: {self.note}."


def session_trust(state: TheoryState) -> SessionTrust:
    """The trust of the session as a whole (for its insights and distilled skills): established
    only when the theorem was proved, nothing capped its level, and every proven lemma has
    mechanical or independent evidence."""
    weak = [lid for lid, rec in state.proven_lemmas.items() if not counts_as_independent(rec)]
    self_reviewed = any(review_kind(rec) == "self" for rec in state.proven_lemmas.values())
    claimed = state.weakest_level()
    note = outcome_note(state)
    if not note and state.status != "proved":
        note = f"the theorem is not proved (status {state.status})"
    if not note and state.level_cap_reasons:
        note = "the theorem's level is capped: " + "; ".join(state.level_cap_reasons[:2])
    if not note and state.contradictions:
        note = "an experiment contradicted it: " + "; ".join(state.contradictions[:2])
    if not note and weak:
        kinds = sorted({_record_note(state.proven_lemmas[lid]) for lid in weak})
        note = f"lemma(s) {', '.join(weak[:6])} have no independent check ({'; '.join(kinds)})"
    return SessionTrust(
        established=not note,
        claimed_level=claimed,
        session_status=state.status,
        self_reviewed=self_reviewed,
        note=note,
        weak_lemmas=weak,
    )
