"""What the survey's models are asked to return (structured output).

Scores are read leniently: a score that is missing, not a number or outside 0–1 becomes None
here, and the DirectionProposer counts it as 0 with a note, so a badly scored direction is
never a reason to fail the whole reply.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        return None
    return number


Score = Annotated[float | None, BeforeValidator(_score)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


class KnownResultDraft(_Out):
    statement: str = Field(description="the result as stated in the paper (LaTeX allowed)")
    assumptions: list[str] = Field(default_factory=list)
    location: str = Field(default="", description="where in the paper, e.g. 'abstract', 'Theorem 2'")


class PaperSummaryDraft(_Out):
    paper_id: str
    summary: str
    known_results: list[KnownResultDraft] = Field(default_factory=list)


class SummaryBatch(_Out):
    summaries: list[PaperSummaryDraft] = Field(default_factory=list)


class GapAnalysis(_Out):
    gap_analysis: str
    open_questions: list[str] = Field(default_factory=list)


class DirectionDraft(_Out):
    title: str
    statement: str = Field(description="a precise mathematical statement to prove")
    rationale: str = ""
    novelty: Score = None
    soundness: Score = None
    transformative: Score = None
    based_on: list[str] = Field(default_factory=list, description="paper_ids it builds on")


class DirectionSet(_Out):
    directions: list[DirectionDraft] = Field(default_factory=list)
