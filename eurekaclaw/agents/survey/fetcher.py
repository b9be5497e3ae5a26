"""PaperFetcher: a tool-using agent that decides which searches to run and which of the papers
the tools returned are relevant. Its answer is a list of paper ids, and every id is checked
against the papers the tools actually returned (the pool); anything else is dropped."""

from __future__ import annotations

from dataclasses import dataclass, field

from eurekaclaw.agents.base import AgentContext, BaseAgent
from eurekaclaw.errors import LLMOutputError
from eurekaclaw.llm.session_client import extract_json
from eurekaclaw.llm.types import ToolUseBlock
from eurekaclaw.skills.prompt_budget import skills_block
from eurekaclaw.templates import render_prompt
from eurekaclaw.tools.base import ToolRegistry, run_tool_loop
from eurekaclaw.tools.literature.service import LiteratureService
from eurekaclaw.tools.literature.tools import PaperPool, paper_brief, register_literature_tools
from eurekaclaw.tools.roles import role_tool_names
from eurekaclaw.types.artifacts import Paper

MAX_TURNS = 5
CANDIDATES_SHOWN = 15


@dataclass
class FetchResult:
    papers: list[Paper]
    notes: list[str] = field(default_factory=list)
    dropped_ids: list[str] = field(default_factory=list)


def choose_papers(pool: PaperPool, seeds: list[Paper], relevant_ids: list[str] | None, max_papers: int) -> FetchResult:
    """Seeds first, then the model's relevant ids that exist in the pool (all pool papers when
    the model gave no usable list), capped at `max_papers`."""
    chosen: list[Paper] = []
    seen: set[str] = set()
    notes: list[str] = []
    dropped: list[str] = []

    def take(paper: Paper) -> None:
        if paper.paper_id not in seen:
            seen.add(paper.paper_id)
            chosen.append(paper)

    for seed in seeds:
        take(seed)
    if relevant_ids is None:
        for paper in pool.papers():
            take(paper)
    else:
        for raw in relevant_ids:
            found = pool.get(str(raw))
            if found is None:
                dropped.append(str(raw))
            else:
                take(found)
    if dropped:
        notes.append(
            f"dropped {len(dropped)} paper id(s) the model named that no literature tool "
            f"returned: {', '.join(dropped[:10])}"
        )
    if len(chosen) > max_papers:
        notes.append(f"kept the first {max_papers} of {len(chosen)} relevant papers (SURVEY_MAX_PAPERS)")
        chosen = chosen[:max_papers]
    return FetchResult(chosen, notes, dropped)


def relevant_ids_from(text: str) -> list[str] | None:
    """The `relevant_ids` list of the fetcher's final JSON answer; None when there is none."""
    try:
        data = extract_json(text or "")
    except ValueError:
        return None
    ids = data.get("relevant_ids") if isinstance(data, dict) else None
    if not isinstance(ids, list):
        return None
    return [str(i) for i in ids if isinstance(i, str | int)]


class PaperFetcher(BaseAgent):
    role = "survey_fetcher"
    max_tokens_key = "survey"

    def __init__(self, ctx: AgentContext, service: LiteratureService, pool: PaperPool) -> None:
        super().__init__(ctx)
        self.service = service
        self.pool = pool

    def _on_tool_call(self, call: ToolUseBlock, text: str, is_error: bool) -> None:
        self.log(f"tool {call.name}", arguments=call.input, error=is_error)
        self.ctx.events(
            "survey", state="tool", tool=call.name, arguments=call.input, error=is_error, pool=len(self.pool)
        )

    async def find(self, *, mode: str, topic: str, seeds: list[Paper], max_papers: int) -> FetchResult:
        registry = ToolRegistry()
        names = register_literature_tools(registry, self.service, self.pool)
        for name in role_tool_names(self.ctx.tools, "survey"):  # web_search, when configured
            tool = self.ctx.tools.get(name)
            if tool is not None:
                registry.register(tool)
                names.append(name)
        seed_ids = {s.paper_id for s in seeds}
        candidates = [p for p in self.pool.papers() if p.paper_id not in seed_ids][:CANDIDATES_SHOWN]
        prompt = render_prompt(
            "survey_fetcher_task",
            mode=mode,
            topic=topic,
            domain=self.ctx.domain if self.ctx.domain != "general" else "",
            seeds=[paper_brief(p) for p in seeds],
            candidates=[paper_brief(p) for p in candidates],
            max_papers=max_papers,
        )
        skills = skills_block(self.ctx, self.role, topic)  # survey skills (search and reading habits)
        request = self.request(prompt, extra_system=skills).model_copy(update={"tools": registry.specs(names)})
        try:
            response, _ = await run_tool_loop(
                self.ctx.llm.complete,
                request,
                registry,
                max_turns=MAX_TURNS,
                on_tool_call=self._on_tool_call,
            )
        except LLMOutputError as exc:
            result = choose_papers(self.pool, seeds, None, max_papers)
            result.notes.insert(0, f"the paper fetcher gave no answer ({exc.message}); kept every paper found")
            return result
        ids = relevant_ids_from(response.text)
        result = choose_papers(self.pool, seeds, ids, max_papers)
        if ids is None:
            result.notes.insert(0, "the paper fetcher's answer had no relevant_ids list; kept every paper found")
        return result
