"""OpenAlex client: full-text search, title search and work by OpenAlex id or DOI.

``mailto`` (OPENALEX_MAILTO) puts requests in OpenAlex's polite pool. Abstracts come as an
inverted index (word → positions) and are rebuilt here.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from eurekaclaw.tools.literature.http import LiteratureHttp, SourceUnavailable
from eurekaclaw.tools.literature.records import make_paper
from eurekaclaw.types.artifacts import Paper

API_URL = "https://api.openalex.org"
HOST = "api.openalex.org"
SELECT = "id,doi,title,display_name,publication_year,authorships,primary_location,cited_by_count,abstract_inverted_index,ids,locations"
_ARXIV_LANDING = re.compile(r"arxiv\.org/abs/(?P<id>[^\s?#]+)")
# Characters that OpenAlex's filter syntax reserves (`,` separates values, `|` means OR, `:`).
_FILTER_RESERVED = re.compile(r"[,|:]")


def rebuild_abstract(index: dict[str, list[int]] | None) -> str:
    if not index:
        return ""
    positions = [(pos, word) for word, where in index.items() for pos in where]
    return " ".join(word for _, word in sorted(positions))


def _arxiv_from_locations(item: dict[str, Any]) -> str | None:
    for loc in [item.get("primary_location")] + list(item.get("locations") or []):
        url = (loc or {}).get("landing_page_url") or ""
        match = _ARXIV_LANDING.search(url)
        if match:
            return match["id"]
    return None


def short_id(openalex_url: str | None) -> str | None:
    return openalex_url.rsplit("/", 1)[-1] if openalex_url else None


def parse_work(item: dict[str, Any] | None) -> Paper | None:
    if not item:
        return None
    title = item.get("title") or item.get("display_name")
    if not title:
        return None
    source = (item.get("primary_location") or {}).get("source") or {}
    return make_paper(
        "openalex",
        title=title,
        doi=item.get("doi"),
        arxiv_id=_arxiv_from_locations(item),
        openalex_id=short_id(item.get("id")),
        authors=[
            (a.get("author") or {}).get("display_name", "")
            for a in item.get("authorships") or []
            if (a.get("author") or {}).get("display_name")
        ],
        year=item.get("publication_year"),
        abstract=rebuild_abstract(item.get("abstract_inverted_index")),
        venue=source.get("display_name") or "",
        citation_count=item.get("cited_by_count"),
        url=item.get("doi") or item.get("id"),
    )


class OpenAlexClient:
    source = "openalex"
    host = HOST

    def __init__(self, http: LiteratureHttp, mailto: str | None = None) -> None:
        self.http = http
        self.mailto = mailto

    def _params(self, **params: Any) -> dict[str, Any]:
        if self.mailto:
            params["mailto"] = self.mailto
        return params

    async def _works(self, params: dict[str, Any]) -> list[Paper]:
        response = await self.http.get(f"{API_URL}/works", params=self._params(**params), expect="json")
        if response.status >= 500 or response.status in (401, 403):
            raise SourceUnavailable(HOST, f"HTTP {response.status}")
        if response.status >= 400:
            return []
        results = response.json().get("results") or []
        return [p for p in (parse_work(item) for item in results) if p is not None]

    async def search(self, query: str, limit: int = 10) -> list[Paper]:
        return await self._works({"search": query, "per_page": limit, "select": SELECT})

    async def title_search(self, title: str, limit: int = 5) -> list[Paper]:
        cleaned = _FILTER_RESERVED.sub(" ", title).strip()
        return await self._works({"filter": f"title.search:{cleaned}", "per_page": limit, "select": SELECT})

    async def work(self, work_id: str) -> Paper | None:
        """A work by OpenAlex id (W…) or DOI; None when OpenAlex does not know it."""
        key = f"https://doi.org/{work_id}" if work_id.startswith("10.") else work_id
        response = await self.http.get(f"{API_URL}/works/{quote(key, safe=':/')}", params=self._params(), expect="json")
        if response.status >= 500 or response.status in (401, 403):
            raise SourceUnavailable(HOST, f"HTTP {response.status}")
        if response.status >= 400:
            return None
        return parse_work(response.json())
