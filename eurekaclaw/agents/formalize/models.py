"""What the Formalizer asks the model for (structured output) and how it becomes typed lemmas.

The output models are lenient where small models stray (an unknown provenance becomes "new",
a malformed claim is kept aside and reported instead of spoiling the whole plan); everything is
checked again by dag.py and claims.py before it reaches the TheoryState.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from eurekaclaw.agents.formalize.dag import ID_PATTERN
from eurekaclaw.types.artifacts import LemmaNode, ProofPlan

PROVENANCES = ("known", "adapted", "new")


def _provenance(value: Any) -> str:
    text = str(value or "new").strip().lower()
    return text if text in PROVENANCES else "new"


class ClaimVariableOut(BaseModel):
    name: str
    domain: str = "real"
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False


class ClaimOut(BaseModel):
    """A machine-checkable version of a quantitative statement (see docs/verification.md)."""

    variables: list[ClaimVariableOut] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    conclusion: str


class LemmaOut(BaseModel):
    # The pattern guides the local backend's grammar only (validation stays lenient: dag.py
    # repairs ids by code).
    id: str = Field(json_schema_extra={"pattern": ID_PATTERN})
    statement: str
    informal: str = ""
    provenance: str = "new"
    citation: str | None = None
    dependencies: list[str] = Field(
        default_factory=list, json_schema_extra={"items": {"type": "string", "pattern": ID_PATTERN}}
    )
    claim: ClaimOut | None = None
    # True when the claim says everything the statement says; the lemma is then shown as its
    # claim (rendered by code), and only then can a checker's proof of the claim be its level.
    claim_is_statement: bool = False
    is_root: bool = False

    @field_validator("provenance", mode="before")
    @classmethod
    def _lenient_provenance(cls, value: Any) -> str:
        return _provenance(value)

    @field_validator("claim_is_statement", mode="before")
    @classmethod
    def _lenient_flag(cls, value: Any) -> bool:
        # Anything but an explicit yes keeps the lemma's own statement (and caps its level).
        return value is True or str(value).strip().lower() in ("true", "yes", "1")

    @field_validator("id", mode="before")
    @classmethod
    def _strip_id(cls, value: Any) -> str:
        return str(value).strip()

    @field_validator("dependencies", mode="before")
    @classmethod
    def _strip_deps(cls, value: Any) -> list[str]:
        return [str(v).strip() for v in (value or [])]

    def to_node(self, **extra: Any) -> LemmaNode:
        """The typed lemma, without its claim (claims.py validates and attaches it)."""
        return LemmaNode(
            id=self.id,
            statement=self.statement,
            informal=self.informal,
            provenance=self.provenance,  # type: ignore[arg-type]
            citation=self.citation or None,
            dependencies=list(dict.fromkeys(self.dependencies)),
            is_root=self.is_root,
            **extra,
        )


class PlanItemOut(BaseModel):
    id: str
    description: str
    provenance: str = "new"
    citation: str | None = None
    lemma_ids: list[str] = Field(default_factory=list)

    @field_validator("provenance", mode="before")
    @classmethod
    def _lenient_provenance(cls, value: Any) -> str:
        return _provenance(value)

    def to_plan(self) -> ProofPlan:
        return ProofPlan(
            id=self.id,
            description=self.description,
            provenance=self.provenance,  # type: ignore[arg-type]
            citation=self.citation or None,
            lemma_ids=self.lemma_ids,
        )


class FormalPlan(BaseModel):
    """The Formalizer's answer: formal statement, assumptions, labelled plan, lemma DAG."""

    formal_statement: str
    assumptions: list[str] = Field(default_factory=list)
    proof_plan: list[PlanItemOut] = Field(default_factory=list)
    lemmas: list[LemmaOut] = Field(min_length=1)
    # The user's statement itself as a claim (nothing added), compared with the root lemma's
    # claim to tell whether what is proved is narrower than what was asked (claim_match.py).
    statement_claim: ClaimOut | None = None

    @field_validator("statement_claim", mode="before")
    @classmethod
    def _lenient_statement_claim(cls, value: Any) -> Any:
        # A malformed statement claim must not sink the plan: it is dropped, and the scope of
        # the proved claim is then "unknown" (never "same").
        if value is None or isinstance(value, ClaimOut):
            return value
        try:
            return ClaimOut.model_validate(value)
        except ValidationError:
            return None


class ClaimFix(BaseModel):
    lemma_id: str
    claim: ClaimOut | None = None  # null: the statement has no machine-checkable form
    claim_is_statement: bool | None = None


class ClaimFixes(BaseModel):
    fixes: list[ClaimFix] = Field(default_factory=list)


class Replan(BaseModel):
    """A re-plan of the part of the DAG that depended on a refuted lemma."""

    rationale: str = ""
    lemmas: list[LemmaOut] = Field(default_factory=list)
