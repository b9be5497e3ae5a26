"""Semantic Scholar Graph API client: search, paper by id (``arXiv:``/``DOI:``/S2 ids), batch and
references. An API key (S2_API_KEY) goes in the ``x-api-key`` header; it is never part of the
cache key."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from eurekaclaw.tools.literature.http import LiteratureHttp, SourceUnavailable
from eurekaclaw.tools.literature.ids import PaperRef, parse_paper_id
from eurekaclaw.tools.literature.records import clean_text, make_paper
from eurekaclaw.types.artifacts import Paper

API_URL = "https://api.semanticscholar.org/graph/v1"
HOST = "api.semanticscholar.org"
FIELDS = "paperId,externalIds,title,abstract,authors,year,venue,citationCount,url"
BATCH_LIMIT = 500  # the API's documented maximum ids per batch request


def s2_lookup_id(ref: PaperRef) -> str:
    """The id form the Graph API accepts for a normalised reference."""
    if ref.kind == "arxiv":
        return f"arXiv:{ref.value}"
    if ref.kind == "doi":
        return f"DOI:{ref.value}"
    return ref.value


def parse_paper(item: dict[str, Any] | None) -> Paper | None:
    if not item or not item.get("title"):
        return None
    ext = item.get("externalIds") or {}
    return make_paper(
        "semantic_scholar",
        title=item["title"],
        doi=ext.get("DOI"),
        arxiv_id=ext.get("ArXiv"),
        s2_id=item.get("paperId"),
        authors=[a.get("name", "") for a in item.get("authors") or [] if a.get("name")],
        year=item.get("year"),
        abstract=clean_text(item.get("abstract")),
        venue=item.get("venue") or "",
        citation_count=item.get("citationCount"),
        url=item.get("url"),
    )


class SemanticScholarClient:
    source = "semantic_scholar"
    host = HOST

    def __init__(self, http: LiteratureHttp, api_key: str | None = None) -> None:
        self.http = http
        self.headers = {"x-api-key": api_key} if api_key else None

    def _check(self, status: int) -> None:
        if status in (401, 403):
            raise SourceUnavailable(HOST, f"request refused (HTTP {status}); check S2_API_KEY")
        if status >= 500:
            raise SourceUnavailable(HOST, f"HTTP {status}")

    async def search(self, query: str, limit: int = 10) -> list[Paper]:
        response = await self.http.get(
            f"{API_URL}/paper/search",
            params={"query": query, "fields": FIELDS, "limit": limit, "offset": 0},
            headers=self.headers,
            expect="json",
        )
        self._check(response.status)
        if response.status >= 400:
            return []
        data = response.json().get("data") or []
        return [p for p in (parse_paper(item) for item in data) if p is not None]

    async def paper(self, paper_id: str) -> Paper | None:
        """One paper by an id the API accepts (S2 id, ``arXiv:…``, ``DOI:…``); None on 404."""
        response = await self.http.get(
            f"{API_URL}/paper/{quote(paper_id, safe=':/')}",
            params={"fields": FIELDS},
            headers=self.headers,
            expect="json",
        )
        self._check(response.status)
        if response.status == 404:
            return None
        if response.status >= 400:
            return None
        return parse_paper(response.json())

    async def batch(self, ids: list[str]) -> list[Paper | None]:
        """Papers in request order; None where the API answered null (unknown id)."""
        out: list[Paper | None] = []
        for start in range(0, len(ids), BATCH_LIMIT):
            chunk = ids[start : start + BATCH_LIMIT]
            response = await self.http.post_json(
                f"{API_URL}/paper/batch",
                {"ids": chunk},
                params={"fields": FIELDS},
                headers=self.headers,
                expect="json",
            )
            self._check(response.status)
            if response.status >= 400:
                out.extend([None] * len(chunk))
                continue
            items = response.json()
            if not isinstance(items, list) or len(items) != len(chunk):
                raise SourceUnavailable(HOST, "batch answer does not match the request")
            out.extend(parse_paper(item) for item in items)
        return out

    async def fetch(self, ids: list[str]) -> dict[str, Paper]:
        """Papers keyed by the normalised ids given (see ids.parse_paper_id); unknown ids absent."""
        refs = [(i, parse_paper_id(i)) for i in ids]
        valid = [(i, r) for i, r in refs if r is not None]
        papers = await self.batch([s2_lookup_id(r) for _, r in valid]) if valid else []
        return {i: p for (i, _), p in zip(valid, papers, strict=True) if p is not None}

    async def references(self, paper_id: str, limit: int = 20) -> list[Paper]:
        """Papers the given paper cites (related work for from-papers)."""
        response = await self.http.get(
            f"{API_URL}/paper/{quote(paper_id, safe=':/')}/references",
            params={"fields": FIELDS, "limit": limit},
            headers=self.headers,
            expect="json",
        )
        self._check(response.status)
        if response.status >= 400:
            return []
        data = response.json().get("data") or []
        return [p for p in (parse_paper(item.get("citedPaper")) for item in data) if p is not None]
