"""Structured outputs of the theory agents. Lenient on the way in (a category the model
invents becomes "other", a confidence of 7 becomes 1.0) because small models stray, strict
in what they mean: the verdict is read fail-closed by the loop."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, Field, field_validator

from eurekaclaw.agents.formalize.models import LemmaOut
from eurekaclaw.types.artifacts import ErrorCategory, SelfAssessment

CATEGORIES: tuple[str, ...] = get_args(ErrorCategory)
_ALIASES = {
    "invalid step": "invalid_step",
    "invalid": "invalid_step",
    "logic": "invalid_step",
    "logical_error": "invalid_step",
    "missing case": "missing_case",
    "wrong assumption": "wrong_assumption",
    "assumption": "wrong_assumption",
    "loose_bound": "bound_too_loose",
    "bound too loose": "bound_too_loose",
    "circular_reasoning": "circular",
    "incomplete": "gap",
    "missing_step": "gap",
}


def category_of(value: Any) -> str:
    text = str(value or "").strip().lower()
    text = _ALIASES.get(text, text.replace(" ", "_").replace("-", "_"))
    return text if text in CATEGORIES else "other"


def _unit(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return 0.0
    if x > 1.0 and x <= 100.0:  # "85" meaning 85 %
        x = x / 100.0
    return min(1.0, max(0.0, x))


class SelfAssessmentOut(BaseModel):
    confidence: float = 0.0
    gaps: list[str] = Field(default_factory=list)
    weakest_step: str = ""

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        return _unit(value)

    def to_record(self) -> SelfAssessment:
        return SelfAssessment(confidence=self.confidence, gaps=self.gaps, weakest_step=self.weakest_step)


# A proof shorter than this is no argument ("Trivial.", "ProofAttempt"); see also substance.py.
MIN_PROOF_CHARS = 24


class ProofAttempt(BaseModel):
    """A proof of one lemma plus the prover's own view of its weak points."""

    proof: str = Field(
        min_length=MIN_PROOF_CHARS, description="the argument, step by step (not a restatement of the claim)"
    )
    self_assessment: SelfAssessmentOut = Field(default_factory=SelfAssessmentOut)
    # Coq, when asked for: the proof script of the statement the project generated from the
    # claim, and helper lemmas placed before it. The model never writes the statement itself.
    formal_proof: str | None = None
    formal_helpers: str | None = None

    @field_validator("proof")
    @classmethod
    def _has_length(cls, value: str) -> str:
        if len(" ".join(value.split())) < MIN_PROOF_CHARS:
            raise ValueError(f"a proof needs at least {MIN_PROOF_CHARS} characters of argument, not only whitespace")
        return value


class ReviewError(BaseModel):
    category: str = "other"
    description: str = ""
    location: str = ""
    severity: Literal["major", "minor"] = "major"

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: Any) -> str:
        return category_of(value)

    @field_validator("severity", mode="before")
    @classmethod
    def _severity(cls, value: Any) -> str:
        return "minor" if str(value or "").strip().lower() == "minor" else "major"


class ReviewVerdict(BaseModel):
    """The independent reviewer's verdict on a whole proof."""

    verdict: Literal["pass", "fail"]
    errors: list[ReviewError] = Field(default_factory=list)
    confidence: float
    summary: str = ""

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        return _unit(value)

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> str:
        text = str(value or "").strip().lower()
        if text in ("pass", "passed", "accept", "accepted", "correct", "valid"):
            return "pass"
        if text in ("fail", "failed", "reject", "rejected", "incorrect", "invalid"):
            return "fail"
        raise ValueError("verdict must be 'pass' or 'fail'")

    def major_errors(self) -> list[ReviewError]:
        return [e for e in self.errors if e.severity == "major"]


class Instance(BaseModel):
    assignment: dict[str, float]
    reasoning: str = ""


class CounterexampleProposal(BaseModel):
    """Concrete values of the claim's variables that might violate it (checked by machine)."""

    candidates: list[Instance] = Field(default_factory=list)


class BroadRepair(BaseModel):
    """After repeated failures of one kind: a different approach, or a split into sub-lemmas."""

    strategy: Literal["new_approach", "split"]
    rationale: str = ""
    attempt: ProofAttempt | None = None
    sub_lemmas: list[LemmaOut] = Field(default_factory=list)

    @field_validator("strategy", mode="before")
    @classmethod
    def _strategy(cls, value: Any) -> str:
        text = str(value or "").strip().lower().replace(" ", "_").replace("-", "_")
        return "split" if "split" in text else "new_approach"


class ConsistencyVerdict(BaseModel):
    """Does the assembled proof prove the formal statement under its assumptions, using each
    lemma it cites correctly?"""

    proves_statement: bool
    assumptions_respected: bool
    cited_lemmas_used_correctly: bool
    verdict: Literal["consistent", "inconsistent"]
    issues: list[str] = Field(default_factory=list)

    def passed(self) -> bool:
        return (
            self.verdict == "consistent"
            and self.proves_statement
            and self.assumptions_respected
            and self.cited_lemmas_used_correctly
        )


class FormalRepair(BaseModel):
    """A repaired Coq proof script of the statement the project generated (never the statement)."""

    formal_proof: str = Field(min_length=1, description="the tactics between Proof. and Qed.")
    formal_helpers: str | None = None
