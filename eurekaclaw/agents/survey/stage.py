"""SurveyStage: stage 1. Literature → bibliography (verified citations) → research brief.

prove        a scoped search of the statement, so known results can be cited instead of
             re-proved; the selected direction is the statement itself.
from-papers  exactly the given ids, their related work, summaries, known results, a gap
             analysis and 3–5 scored directions; the best one is selected for Formalize.
explore      the same, starting from a broad search of the domain description.

Offline (no source reachable, or EUREKACLAW_OFFLINE=1) the stage finishes at once with what
the cache holds, `brief.offline = True` and a note; `prove` completes, `explore` proposes
directions without literature and reports `partial`, `from-papers` fails if no requested paper
could be fetched (even from the cache).
"""

from __future__ import annotations

from eurekaclaw.agents.base import AgentContext
from eurekaclaw.agents.stage import Stage, StageOutcome
from eurekaclaw.agents.survey.analysts import GapAnalyst, Summarizer
from eurekaclaw.agents.survey.directions import DirectionProposer
from eurekaclaw.agents.survey.fetcher import PaperFetcher, choose_papers
from eurekaclaw.llm.context import current_stage
from eurekaclaw.tools.literature.citations import assign_cite_keys
from eurekaclaw.tools.literature.ids import validate_paper_ids
from eurekaclaw.tools.literature.service import LiteratureService
from eurekaclaw.tools.literature.tools import PaperPool
from eurekaclaw.types.artifacts import Bibliography, Paper, ResearchBrief, ResearchDirection
from eurekaclaw.types.tasks import InputSpec

SEARCH_LIMIT = {"prove": 8, "explore": 15, "from-papers": 10}
SUMMARY_LIMIT = {"prove": 8, "explore": 12, "from-papers": 12}


def literature_service(ctx: AgentContext) -> tuple[LiteratureService, bool]:
    """(service, owned): tests and callers may supply one in ctx.services.literature."""
    given = ctx.services.literature
    if given is not None:
        return given, False
    return LiteratureService.from_settings(ctx.settings), True


class SurveyStage(Stage):
    name = "survey"
    produces = ("research_brief", "bibliography")

    def missing_inputs(self, ctx: AgentContext, spec: InputSpec) -> str | None:
        if spec.mode == "from-papers" and not spec.paper_ids:
            return "from-papers needs at least one paper id"
        if spec.mode != "from-papers" and not spec.statement.strip():
            return "nothing to survey: the statement is empty"
        return None

    async def run(self, ctx: AgentContext, spec: InputSpec, *, resume: bool = False) -> StageOutcome:
        existing = ctx.bus.get_research_brief()
        if resume and existing is not None and existing.selected_direction is not None:
            return StageOutcome(status="completed", summary="survey already done")
        token = current_stage.set("survey")
        service, owned = literature_service(ctx)
        try:
            return await _Survey(ctx, spec, service).run()
        finally:
            current_stage.reset(token)
            if owned:
                await service.aclose()


class _Survey:
    """One run of the stage; keeps the brief being built and the pool of fetched papers."""

    def __init__(self, ctx: AgentContext, spec: InputSpec, service: LiteratureService) -> None:
        self.ctx = ctx
        self.spec = spec
        self.service = service
        self.pool = PaperPool()
        self.mode = spec.mode
        self.topic = spec.statement.strip()
        self.brief = ResearchBrief(domain=ctx.domain, query=self.topic)

    def event(self, state: str, message: str, **data: object) -> None:
        self.ctx.events("survey", state=state, message=message, **data)

    def note(self, text: str) -> None:
        if text and text not in self.brief.notes:
            self.brief.notes.append(text)

    # --- the steps --------------------------------------------------------------------------
    async def _seeds(self) -> list[Paper] | str:
        """The papers to start from, or the reason the stage cannot go on."""
        if self.mode == "from-papers":
            ids = validate_paper_ids(self.spec.paper_ids)
            self.brief.requested_ids = ids
            self.event("fetching", f"fetching {len(ids)} paper(s)", ids=ids)
            outcome = await self.service.fetch_ids(ids)
            self.brief.missing_ids = list(outcome.missing)
            for pid in outcome.missing:
                self.note(f"paper {pid} does not exist on any source that was asked; continuing without it")
            if outcome.unreachable:
                self.note("could not fetch (sources unavailable): " + ", ".join(outcome.unreachable))
            seeds = self.pool.add([outcome.found[i] for i in ids if i in outcome.found])
            if not seeds:
                if self.service.offline:
                    return "offline: none of the requested papers could be fetched (no literature source is reachable and none is cached)"
                missing = ", ".join(outcome.missing + outcome.unreachable)
                return f"none of the requested papers could be fetched: {missing}"
            if not self.topic:
                self.topic = "; ".join(p.title for p in seeds)
                self.brief.query = self.topic
            return seeds
        self.event("searching", f"searching the literature for: {self.topic[:80]}")
        found = await self.service.search(self.topic, limit=SEARCH_LIMIT[self.mode])
        self.pool.add(found)
        return []

    async def _bibliography(self, seeds: list[Paper]) -> list[Paper]:
        max_papers = self.ctx.settings.survey_max_papers
        if self.brief.offline:
            chosen = choose_papers(self.pool, seeds, None, max_papers)
        else:
            self.event("fetching", "looking for related work", pool=len(self.pool))
            chosen = await PaperFetcher(self.ctx, self.service, self.pool).find(
                mode=self.mode, topic=self.topic, seeds=seeds, max_papers=max_papers
            )
        for n in chosen.notes:
            self.note(n)
        papers = chosen.papers
        self.event("verifying", f"verifying {len(papers)} citation(s)")
        checked, checks_ran = await self.service.verify(papers) if papers else ([], False)
        keyed = assign_cite_keys(checked)
        self.ctx.bus.put_bibliography(Bibliography(papers=keyed, checks_ran=checks_ran))
        self._verification_notes(keyed, checks_ran)
        return keyed

    def _verification_notes(self, papers: list[Paper], checks_ran: bool) -> None:
        if not papers:
            return
        if not checks_ran:
            self.note(
                "citations could not be verified (no source answered); every entry is "
                "marked unverified and none may be cited as verified"
            )
            return
        suspicious = [p for p in papers if p.verification == "suspicious"]
        if suspicious:
            self.note(
                "suspicious citations (metadata does not match; not citable until checked): "
                + "; ".join(f"{p.cite_key}: {p.title}" for p in suspicious[:10])
            )
        not_found = [p for p in papers if p.verification == "not_found"]
        if not_found:
            self.note(
                "citations no source could confirm (not citable): "
                + "; ".join(f"{p.cite_key}: {p.title}" for p in not_found[:10])
            )
        unverified = [p for p in papers if p.verification == "unverified"]
        if unverified:
            self.note(f"{len(unverified)} citation(s) could not be checked and stay unverified")

    async def run(self) -> StageOutcome:
        self.event("started", f"survey ({self.mode})")
        seeds = await self._seeds()
        if isinstance(seeds, str):
            self._finish()
            self.event("failed", seeds)
            return StageOutcome(status="failed", reason=seeds, retryable=False)
        if self.service.offline:
            self.brief.offline = True
            why = (
                "EUREKACLAW_OFFLINE is set, no literature request was made"
                if self.service.http.offline
                else "no literature source could be reached"
            )
            self.note(
                f"offline: {why}"
                + (f" ({len(self.pool)} paper(s) from the cache)" if len(self.pool) else "")
                + "; the survey continued without new literature"
            )
        papers = await self._bibliography(seeds)

        summarize = papers[: SUMMARY_LIMIT[self.mode]]
        if summarize:
            self.event("summarizing", f"summarising {len(summarize)} paper(s)")
            summaries, notes = await Summarizer(self.ctx).summarize(summarize, topic=self.topic)
            self.brief.summaries = summaries
            self.brief.known_results = [k for s in summaries for k in s.known_results]
            for n in notes:
                self.note(n)

        if self.mode == "prove":
            return self._finish_prove(papers)
        return await self._finish_directions(papers)

    async def _gap(self) -> None:
        self.event("analysing", "looking for gaps")
        gap, notes = await GapAnalyst(self.ctx).analyse(
            mode=self.mode, topic=self.topic, summaries=self.brief.summaries, offline=self.brief.offline
        )
        self.brief.gap_analysis = gap
        for n in notes:
            self.note(n)

    def _finish_prove(self, papers: list[Paper]) -> StageOutcome:
        statement = ResearchDirection(
            title="Statement to prove",
            statement=self.topic,
            rationale="given by the user (prove mode)",
        )
        self.brief.directions = [statement]
        self.brief.selected_direction = statement
        self._finish()
        summary = f"{len(papers)} paper(s), {len(self.brief.known_results)} known result(s)" + (
            "; offline: no literature" if self.brief.offline else ""
        )
        self.event("done", summary)
        return StageOutcome(
            status="completed", summary=summary, reason="offline: surveyed nothing" if self.brief.offline else ""
        )

    async def _finish_directions(self, papers: list[Paper]) -> StageOutcome:
        await self._gap()
        self.event("proposing", "proposing research directions")
        directions, notes = await DirectionProposer(self.ctx).propose(
            topic=self.topic,
            gap=self.brief.gap_analysis,
            known_results=self.brief.known_results,
            papers=papers,
            offline=self.brief.offline,
        )
        for n in notes:
            self.note(n)
        self.brief.directions = directions
        self.brief.selected_direction = directions[0] if directions else None
        self._finish()
        if not directions:
            reason = "no research direction could be proposed"
            self.event("failed", reason)
            return StageOutcome(status="failed", reason=reason)
        best = directions[0]
        summary = (
            f"{len(papers)} paper(s), {len(directions)} direction(s); selected "
            f"{best.title!r} (composite {best.composite:.2f})"
        )
        self.event("done", summary, selected=best.title)
        if self.brief.offline:
            return StageOutcome(
                status="partial",
                summary=summary,
                reason="offline: directions were proposed without a literature survey",
            )
        return StageOutcome(status="completed", summary=summary)

    def _finish(self) -> None:
        self.brief.unavailable_sources = self.service.unavailable_sources()
        if self.ctx.bus.get_bibliography() is None:
            self.ctx.bus.put_bibliography(Bibliography(papers=[], checks_ran=False))
        self.ctx.bus.put_research_brief(self.brief)
