"""Composite scores of research directions and the deterministic choice of the best one.

composite = (w_n·novelty + w_s·soundness + w_t·transformative) / (w_n + w_s + w_t), with the
weights from DIRECTION_WEIGHTS (default 0.4, 0.35, 0.25). Ties are broken by soundness, then
novelty, then transformative potential, then the order in which the directions were proposed.
"""

from __future__ import annotations

from eurekaclaw.agents.survey.models import DirectionDraft
from eurekaclaw.types.artifacts import ResearchDirection

DIMENSIONS = ("novelty", "soundness", "transformative")


def composite(scores: tuple[float, float, float], weights: tuple[float, float, float]) -> float:
    total = sum(weights)
    return sum(w * s for w, s in zip(weights, scores, strict=True)) / total if total > 0 else 0.0


def to_direction(draft: DirectionDraft, weights: tuple[float, float, float]) -> tuple[ResearchDirection, list[str]]:
    """The scored direction and the dimensions whose score was unusable (counted as 0)."""
    failed = [d for d in DIMENSIONS if getattr(draft, d) is None]
    scores = tuple(float(getattr(draft, d) or 0.0) for d in DIMENSIONS)
    direction = ResearchDirection(
        title=draft.title.strip(),
        statement=draft.statement.strip(),
        rationale=draft.rationale.strip(),
        novelty=scores[0],
        soundness=scores[1],
        transformative=scores[2],
        composite=round(composite(scores, weights), 6),  # type: ignore[arg-type]
    )
    return direction, failed


def rank(directions: list[ResearchDirection]) -> list[ResearchDirection]:
    """Best first; the same input always gives the same order."""
    indexed = list(enumerate(directions))
    indexed.sort(
        key=lambda item: (-item[1].composite, -item[1].soundness, -item[1].novelty, -item[1].transformative, item[0])
    )
    return [d for _, d in indexed]


def select(directions: list[ResearchDirection]) -> ResearchDirection | None:
    ranked = rank(directions)
    return ranked[0] if ranked else None
