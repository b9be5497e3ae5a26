"""DirectionProposer: 3–5 research directions, each scored for novelty, soundness and
transformative potential, ranked by the weighted composite (see scoring.py)."""

from __future__ import annotations

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.survey.models import DirectionSet
from eurekaclaw.agents.survey.scoring import rank, to_direction
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.literature.tools import PaperPool
from eurekaclaw.types.artifacts import KnownResult, Paper, ResearchDirection

MIN_DIRECTIONS = 3
MAX_DIRECTIONS = 5


def weights_text(weights: tuple[float, float, float]) -> str:
    n, s, t = weights
    return f"{n:g}·novelty + {s:g}·soundness + {t:g}·transformative (normalised to sum 1)"


class DirectionProposer(BaseAgent):
    role = "survey_direction_proposer"
    max_tokens_key = "survey"

    async def propose(
        self,
        *,
        topic: str,
        gap: str,
        known_results: list[KnownResult],
        papers: list[Paper],
        offline: bool = False,
    ) -> tuple[list[ResearchDirection], list[str]]:
        """Directions best first (at most 5) and notes on what was dropped or defaulted."""
        weights = tuple(self.ctx.settings.direction_weights)
        prompt = render_prompt(
            "survey_direction_proposer_task",
            topic=topic,
            gap=gap,
            known_results=[k.model_dump() for k in known_results[:40]],
            papers=[{"paper_id": p.paper_id, "title": p.title, "year": p.year} for p in papers],
            offline=offline,
            weights_text=weights_text(weights),  # type: ignore[arg-type]
        )
        try:
            reply = await self.ask_structured(self.request(prompt), DirectionSet)
        except LLMOutputError as exc:
            return [], [f"direction proposal failed ({exc.message})"]

        lookup = PaperPool(papers)
        notes: list[str] = []
        directions: list[ResearchDirection] = []
        unknown: list[str] = []
        for draft in reply.directions:
            if not draft.statement.strip() or not draft.title.strip():
                notes.append("dropped a direction without a title or statement")
                continue
            direction, failed = to_direction(draft, weights)  # type: ignore[arg-type]
            if failed:
                notes.append(f"direction {direction.title!r}: unusable {', '.join(failed)} score counted as 0")
            keys = []
            for pid in draft.based_on:
                paper = lookup.get(pid)
                if paper is None:
                    unknown.append(pid)
                else:
                    keys.append(paper.cite_key or paper.paper_id)
            if keys:
                direction.rationale = f"{direction.rationale} (Builds on: {', '.join(keys)}.)".strip()
            directions.append(direction)
        if unknown:
            notes.append("dropped references to papers that were not fetched: " + ", ".join(sorted(set(unknown))[:10]))
        ranked = rank(directions)
        if len(ranked) > MAX_DIRECTIONS:
            notes.append(f"kept the best {MAX_DIRECTIONS} of {len(ranked)} proposed directions")
            ranked = ranked[:MAX_DIRECTIONS]
        if 0 < len(ranked) < MIN_DIRECTIONS:
            notes.append(f"only {len(ranked)} direction(s) proposed (3–5 were asked for)")
        return ranked, notes
