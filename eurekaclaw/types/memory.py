"""Memory records for the four tiers (see docs/memory-and-skills.md).

Results, insights and distilled skills carry where they came from and how far they can be
trusted (`established`, the session's final theory status, self-review), so that a false result
of one session is never handed to the next one as known. Every new field has a default, so a
file written before these fields existed still loads — as *not established*, because nothing
says it was checked independently.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from eurekaclaw.types.artifacts import Model, VerificationLevel, utcnow

# Final theory statuses (TheoryState.status) after which nothing of a session is established:
# its theorem was refuted, contradicted by an experiment, or given up.
UNESTABLISHED_OUTCOMES = frozenset({"contradicted", "refuted", "abandoned"})
# Statuses where a claim of the session was shown false: what it "learned" is offered to later
# sessions only as a pitfall, never even as an unverified result.
FALSE_OUTCOMES = frozenset({"contradicted", "refuted"})
# Levels set by a machine check; any other level counts only after an independent review.
MECHANICAL_LEVELS = frozenset({"formal", "smt"})


def provenance_label(
    *,
    established: bool,
    claimed_level: str | None,
    session_status: str,
    self_reviewed: bool,
    note: str = "",
) -> str:
    """One line a prompt or a listing shows next to a remembered result, e.g.
    "unverified: claimed reviewed by self-review; the session ended contradicted"."""
    if established:
        return f"established at {claimed_level}" if claimed_level else "established"
    bits = []
    if claimed_level:
        bits.append(f"claimed {claimed_level}" + (" by self-review" if self_reviewed else ""))
    elif self_reviewed:
        bits.append("self-reviewed")
    if session_status:
        bits.append(f"the session ended {session_status}")
    else:
        bits.append("stored before results carried their session's status")
    if note and note not in bits:
        bits.append(note)
    return "unverified: " + "; ".join(bits)


class EpisodicEntry(Model):
    entry_id: str
    session_id: str
    agent_role: str
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime = Field(default_factory=utcnow)


class CrossRunRecord(Model):
    key: str  # namespaced, e.g. "theory.failed_strategies.<topic>"
    value: Any = None
    tags: list[str] = Field(default_factory=list)
    source_session: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


# "refutation": the evidence against a statement (a counterexample, a violated bound), linked
# to it by a `contradicts` edge; never offered as a reusable result.
NodeKind = Literal["result", "refutation"]


class KnowledgeNode(Model):
    node_id: str
    statement: str
    normalized: str = ""
    # The claim the checkers read, rendered by EurekaClaw ("" when the result had none): what a
    # later session is shown as the result; `statement` is the model's prose of it.
    claim: str = ""
    domain: str = "general"
    # The level a later session may rely on: "unverified" unless the node is established.
    verification_level: VerificationLevel = "unverified"
    proof_summary: str = ""
    session_id: str | None = None  # the session whose record set the node's level
    tags: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utcnow)
    kind: NodeKind = "result"
    # Established: checked mechanically (formal/smt) or by an independent review (or a verified
    # citation), in a session whose theory did not end refuted/contradicted/abandoned.
    established: bool = False
    claimed_level: VerificationLevel | None = None  # what the session recorded (None: older file)
    session_status: str = ""  # the theory status that session ended with ("" = older file)
    self_reviewed: bool = False
    note: str = ""  # why it is not established
    # A later refutation or contradiction of the same (normalised) statement.
    retracted: bool = False
    retraction: str = ""
    sessions: list[str] = Field(default_factory=list)  # every session that stored it

    def shown(self) -> str:
        """The result as later prompts and pages show it: the checked claim, the prose beside it."""
        if self.claim and self.claim.strip() != self.statement.strip():
            return f"{self.claim} (in words: {self.statement})"
        return self.claim or self.statement

    def trust_label(self) -> str:
        if self.retracted:
            return f"retracted: {self.retraction}" if self.retraction else "retracted"
        return provenance_label(
            established=self.established,
            claimed_level=self.claimed_level or (None if self.established else self.verification_level),
            session_status=self.session_status,
            self_reviewed=self.self_reviewed,
            note=self.note,
        )


class KnowledgeEdge(Model):
    source: str
    target: str
    relation: Literal["uses", "generalizes", "specializes", "contradicts"]


InsightCategory = Literal["domain_knowledge", "proof_strategy", "open_problems", "pitfalls"]
# Categories that state no result: a session that established nothing may still offer them.
CAUTIONARY_CATEGORIES = frozenset({"pitfalls", "open_problems"})


class DomainInsight(Model):
    domain: str
    category: InsightCategory
    title: str
    content: str
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    source_session: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    sha256: str = ""
    file: str = ""
    # How far the session it was learned from got (see KnowledgeNode).
    established: bool = False
    verification_level: VerificationLevel = "unverified"  # the session's weakest level when established
    session_status: str = ""
    self_reviewed: bool = False
    retracted: bool = False
    retraction: str = ""

    def trust_label(self) -> str:
        if self.retracted:
            return f"retracted: {self.retraction}" if self.retraction else "retracted"
        return provenance_label(
            established=self.established,
            claimed_level=self.verification_level if self.established else None,
            session_status=self.session_status,
            self_reviewed=self.self_reviewed,
        )

    def injectable(self) -> bool:
        """Whether a later session's prompts may carry it: never when retracted; a result or a
        strategy from a session whose claim was shown false is not offered even as unverified."""
        if self.retracted:
            return False
        if self.established or self.category in CAUTIONARY_CATEGORIES:
            return True
        return self.session_status not in FALSE_OUTCOMES
