"""Literature tools for the PaperFetcher's tool loop, and the pool of papers they found.

Every paper the survey may put in the brief passes through a `PaperPool`: it is the record of
what the services actually returned, so a paper id a model writes can be checked against it.
"""

from __future__ import annotations

from typing import Any

from eurekaclaw.tools.base import BaseTool, ToolRegistry
from eurekaclaw.tools.literature.dedup import dedupe, same_work
from eurekaclaw.tools.literature.ids import parse_paper_id, strip_arxiv_version
from eurekaclaw.tools.literature.service import LiteratureService
from eurekaclaw.types.artifacts import Paper

ABSTRACT_CHARS = 500


class PaperPool:
    """Papers found by tools, merged across sources, in order of first appearance."""

    def __init__(self, papers: list[Paper] | None = None) -> None:
        self._papers: list[Paper] = dedupe(papers) if papers else []

    def add(self, papers: list[Paper]) -> list[Paper]:
        """Merge `papers` in; returns the pooled versions of them (with canonical ids)."""
        merged = dedupe(self._papers + papers)
        self._papers = merged
        return [next((m for m in merged if same_work(m, p)), p) for p in papers]

    def papers(self) -> list[Paper]:
        return list(self._papers)

    def get(self, paper_id: str) -> Paper | None:
        """By canonical paper id, or by any id form a user or a model might write."""
        wanted = (paper_id or "").strip()
        for paper in self._papers:
            if paper.paper_id.lower() == wanted.lower():
                return paper
        ref = parse_paper_id(wanted)
        if ref is None:
            return None
        for paper in self._papers:
            if ref.kind == "arxiv" and paper.arxiv_id == strip_arxiv_version(ref.value):
                return paper
            if (ref.kind == "doi" and paper.doi == ref.value) or (ref.kind == "s2" and paper.s2_id == ref.value):
                return paper
        return None

    def __len__(self) -> int:
        return len(self._papers)


def paper_brief(paper: Paper) -> dict[str, Any]:
    """What a model sees of a paper: enough to judge relevance, small enough for a prompt."""
    abstract = paper.abstract
    if len(abstract) > ABSTRACT_CHARS:
        abstract = abstract[:ABSTRACT_CHARS].rsplit(" ", 1)[0] + " …"
    return {
        "paper_id": paper.paper_id,
        "title": paper.title,
        "authors": paper.authors[:4] + (["et al."] if len(paper.authors) > 4 else []),
        "year": paper.year,
        "venue": paper.venue,
        "citations": paper.citation_count,
        "abstract": abstract,
    }


class _LiteratureTool(BaseTool):
    def __init__(self, service: LiteratureService, pool: PaperPool) -> None:
        self.service = service
        self.pool = pool

    def _result(self, papers: list[Paper], **extra: Any) -> dict[str, Any]:
        pooled = self.pool.add(papers)
        out: dict[str, Any] = {"papers": [paper_brief(p) for p in pooled], **extra}
        unavailable = self.service.unavailable_sources()
        if unavailable:
            out["unavailable_sources"] = unavailable
        return out


class SearchPapersTool(_LiteratureTool):
    name = "search_papers"
    description = (
        "Search arXiv, Semantic Scholar and OpenAlex for papers matching a query (keywords or a "
        "title). Returns merged results with their paper_id; only papers returned by this or "
        "the other literature tools may be used in the survey."
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "search terms"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 25, "default": 10},
            },
            "required": ["query"],
        }

    async def call(self, query: str, limit: int = 10) -> dict[str, Any]:
        papers = await self.service.search(query, limit=max(1, min(int(limit), 25)))
        return self._result(papers, query=query)


class FetchPapersTool(_LiteratureTool):
    name = "fetch_papers"
    description = (
        "Fetch papers by id: arXiv ids (1204.5721, math/0601001), DOIs or Semantic Scholar "
        "ids. Reports ids that do not exist."
    )

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"ids": {"type": "array", "items": {"type": "string"}, "maxItems": 20}},
            "required": ["ids"],
        }

    async def call(self, ids: list[str]) -> dict[str, Any]:
        valid: list[str] = []
        invalid: list[str] = []
        for raw in ids[:20]:
            ref = parse_paper_id(raw)
            (valid if ref else invalid).append(ref.value if ref else raw)
        outcome = await self.service.fetch_ids(valid)
        return self._result(
            list(outcome.found.values()),
            missing=outcome.missing,
            unreachable=outcome.unreachable,
            invalid=invalid,
        )


class RelatedPapersTool(_LiteratureTool):
    name = "related_papers"
    description = "The works a paper cites (from Semantic Scholar), given a paper_id from earlier results."

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "paper_id": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 30, "default": 15},
            },
            "required": ["paper_id"],
        }

    async def call(self, paper_id: str, limit: int = 15) -> dict[str, Any]:
        paper = self.pool.get(paper_id)
        if paper is None:
            return {"error": f"unknown paper_id {paper_id!r}: use one returned by a literature tool"}
        related = await self.service.related(paper, limit=max(1, min(int(limit), 30)))
        return self._result(related, cited_by=paper.paper_id)


def register_literature_tools(registry: ToolRegistry, service: LiteratureService, pool: PaperPool) -> list[str]:
    """Register the three tools; returns their names."""
    tools = [SearchPapersTool(service, pool), FetchPapersTool(service, pool), RelatedPapersTool(service, pool)]
    for tool in tools:
        registry.register(tool)
    return [t.name for t in tools]
