"""CrossRef client: a work by DOI (api.crossref.org/works/{doi}).

A 404 ("Resource not found.") means CrossRef has no such DOI. DOIs registered elsewhere
(arXiv's 10.48550 DOIs live at DataCite) also answer 404, which the citation ladder knows.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from eurekaclaw.tools.literature.http import LiteratureHttp, SourceUnavailable
from eurekaclaw.tools.literature.records import clean_text, make_paper
from eurekaclaw.types.artifacts import Paper

API_URL = "https://api.crossref.org"
HOST = "api.crossref.org"
_TAG = re.compile(r"<[^>]+>")


# CrossRef's publication dates, in the order the brief for this client documents: the print
# date, then the online date, then `issued` (the earliest of the two, when CrossRef knows it).
# `created`, `deposited` and `indexed` are when the metadata was registered or refreshed —
# years after publication for old works — so they are never used as a publication year.
YEAR_FIELDS = ("published-print", "published-online", "issued")


def _year(message: dict[str, Any]) -> int | None:
    """The publication year, or None when CrossRef states none (never a guess)."""
    for key in YEAR_FIELDS:
        parts = (message.get(key) or {}).get("date-parts") or []
        first = parts[0] if parts and isinstance(parts[0], list) else []
        value = first[0] if first else None
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _author(author: dict[str, Any]) -> str:
    if author.get("name"):  # organisations
        return str(author["name"])
    return clean_text(f"{author.get('given', '')} {author.get('family', '')}")


def parse_work(body: dict[str, Any]) -> Paper | None:
    message = body.get("message") if "message" in body else body
    if not isinstance(message, dict):
        return None
    titles = message.get("title") or []
    if not titles or not message.get("DOI"):
        return None
    container = message.get("container-title") or []
    return make_paper(
        "crossref",
        title=titles[0],
        doi=message["DOI"],
        authors=[_author(a) for a in message.get("author") or [] if _author(a)],
        year=_year(message),
        abstract=clean_text(_TAG.sub(" ", message.get("abstract") or "")),
        venue=container[0] if container else "",
        citation_count=message.get("is-referenced-by-count"),
        url=message.get("URL"),
    )


class CrossrefClient:
    source = "crossref"
    host = HOST

    def __init__(self, http: LiteratureHttp, mailto: str | None = None) -> None:
        self.http = http
        self.mailto = mailto

    async def work(self, doi: str) -> Paper | None:
        """The work registered under `doi`; None when CrossRef does not know it (404)."""
        response = await self.http.get(
            f"{API_URL}/works/{quote(doi, safe='')}",
            params={"mailto": self.mailto} if self.mailto else None,
            expect="json",
        )
        if response.status == 404:
            return None
        if response.status >= 400:
            raise SourceUnavailable(HOST, f"HTTP {response.status}")
        return parse_work(response.json())
