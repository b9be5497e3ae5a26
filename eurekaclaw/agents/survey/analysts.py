"""Summarizer and GapAnalyst: the survey's reading agents.

Both see only the papers the tools returned; a summary or known result about a paper id that
is not among the papers given is dropped with a note.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.agents.base import BaseAgent
from eurekaclaw.agents.survey.models import GapAnalysis, SummaryBatch
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.literature.aio import gather_all
from eurekaclaw.tools.literature.tools import PaperPool
from eurekaclaw.types.artifacts import KnownResult, Paper, PaperSummary

BATCH = 4
ABSTRACT_CHARS = 2500


def _prompt_paper(paper: Paper) -> dict[str, Any]:
    return {
        "paper_id": paper.paper_id,
        "title": paper.title,
        "authors": paper.authors[:6],
        "year": paper.year,
        "venue": paper.venue,
        "abstract": paper.abstract[:ABSTRACT_CHARS],
    }


class Summarizer(BaseAgent):
    role = "survey_summarizer"
    max_tokens_key = "survey"

    async def _batch(self, papers: list[Paper], topic: str) -> tuple[list[PaperSummary], list[str]]:
        prompt = render_prompt("survey_summarizer_task", topic=topic, papers=[_prompt_paper(p) for p in papers])
        try:
            reply = await self.ask_structured(self.request(prompt), SummaryBatch)
        except LLMOutputError as exc:
            return [], [f"could not summarise {len(papers)} paper(s) ({exc.message})"]
        lookup = PaperPool(papers)
        out: list[PaperSummary] = []
        unknown: list[str] = []
        for draft in reply.summaries:
            paper = lookup.get(draft.paper_id)
            if paper is None:
                unknown.append(draft.paper_id)
                continue
            if any(s.paper_id == paper.paper_id for s in out):
                continue
            results = [
                KnownResult(
                    statement=k.statement.strip(),
                    assumptions=[a.strip() for a in k.assumptions if a.strip()],
                    source=paper.paper_id,
                    location=k.location.strip(),
                )
                for k in draft.known_results
                if k.statement.strip()
            ]
            out.append(PaperSummary(paper_id=paper.paper_id, summary=draft.summary.strip(), known_results=results))
        notes = []
        if unknown:
            notes.append(f"dropped summaries of paper ids not among the fetched papers: {', '.join(unknown[:10])}")
        return out, notes

    async def summarize(self, papers: list[Paper], *, topic: str) -> tuple[list[PaperSummary], list[str]]:
        """Summaries in the order of `papers`, and notes on what was dropped or failed."""
        batches = [papers[i : i + BATCH] for i in range(0, len(papers), BATCH)]
        results = await gather_all(*(self._batch(b, topic) for b in batches))
        by_id: dict[str, PaperSummary] = {}
        notes: list[str] = []
        for summaries, batch_notes in results:
            notes.extend(batch_notes)
            for s in summaries:
                by_id.setdefault(s.paper_id, s)
        ordered = [by_id[p.paper_id] for p in papers if p.paper_id in by_id]
        return ordered, notes


class GapAnalyst(BaseAgent):
    role = "survey_gap_analyst"
    max_tokens_key = "survey"

    async def analyse(
        self, *, mode: str, topic: str, summaries: list[PaperSummary], offline: bool = False
    ) -> tuple[str, list[str]]:
        """(gap analysis text, notes)."""
        prompt = render_prompt(
            "survey_gap_analyst_task",
            mode=mode,
            topic=topic,
            summaries=[s.model_dump() for s in summaries],
            offline=offline,
        )
        try:
            reply = await self.ask_structured(self.request(prompt), GapAnalysis)
        except LLMOutputError as exc:
            return "", [f"gap analysis failed ({exc.message})"]
        text = reply.gap_analysis.strip()
        questions = [q.strip() for q in reply.open_questions if q.strip()]
        if questions:
            text += "\n\nOpen questions:\n" + "\n".join(f"- {q}" for q in questions)
        return text, []
