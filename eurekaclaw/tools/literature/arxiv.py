"""arXiv API client (Atom feeds from export.arxiv.org/api/query).

Copes with both feed layouts arXiv has served: the current one (namespaces declared on the
feed) and the pre-2025 one (namespaces declared per element, hard-wrapped text). An error is an
entry whose id points into ``/api/errors`` (arXiv answers 400 with such a feed for a malformed
id); a well-formed id that does not exist simply yields no entry.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import xml.etree.ElementTree as ET

from eurekaclaw.tools.literature.http import LiteratureHttp, SourceUnavailable
from eurekaclaw.tools.literature.ids import normalize_arxiv_id, strip_arxiv_version
from eurekaclaw.tools.literature.records import clean_text, make_paper
from eurekaclaw.types.artifacts import Paper

log = logging.getLogger(__name__)

API_URL = "https://export.arxiv.org/api/query"
HOST = "export.arxiv.org"
NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
_ABS_ID = re.compile(r"arxiv\.org/abs/(?P<id>.+)$")
# Words that make arXiv's all: search match nearly everything.
_STOP = frozenset("a an and are as at by for from in into is of on or the to with".split())


class ArxivQueryError(Exception):
    """arXiv rejected the query (its error feed); the message is arXiv's own."""


def _text(node: ET.Element | None) -> str:
    return clean_text(node.text) if node is not None and node.text else ""


def parse_feed(xml_text: str) -> tuple[list[Paper], list[str]]:
    """(papers, error messages) of an arXiv Atom feed."""
    try:
        root = ET.fromstring(xml_text.encode("utf-8"))
    except ET.ParseError as exc:
        raise ArxivQueryError(f"arXiv answered with unreadable XML: {exc}") from None
    papers: list[Paper] = []
    errors: list[str] = []
    for entry in root.findall("atom:entry", NS):
        entry_id = _text(entry.find("atom:id", NS))
        if "/api/errors" in entry_id:
            errors.append(_text(entry.find("atom:summary", NS)) or entry_id)
            continue
        match = _ABS_ID.search(entry_id)
        arxiv_id = normalize_arxiv_id(match["id"]) if match else None
        title = _text(entry.find("atom:title", NS))
        if not arxiv_id or not title:
            continue  # old feeds listed unknown ids as empty entries
        published = _text(entry.find("atom:published", NS))
        doi = _text(entry.find("arxiv:doi", NS)) or None
        journal = _text(entry.find("arxiv:journal_ref", NS))
        papers.append(
            make_paper(
                "arxiv",
                title=title,
                arxiv_id=arxiv_id,
                doi=doi,
                authors=[_text(a.find("atom:name", NS)) for a in entry.findall("atom:author", NS)],
                year=int(published[:4]) if published[:4].isdigit() else None,
                abstract=_text(entry.find("atom:summary", NS)),
                venue=journal or "arXiv",
                url=f"https://arxiv.org/abs/{strip_arxiv_version(arxiv_id)}",
            )
        )
    return papers, errors


# A word: letters and digits of any script (Unicode), optionally joined by hyphens, dashes or
# apostrophes ("Erdős–Rényi", "Kullback-Leibler", "Bernstein's"). Underscores are not letters.
_WORD = re.compile(r"[^\W_]+(?:[-\u2010-\u2015'\u2019][^\W_]+)*")
_JOINERS = re.compile(r"[-\u2010-\u2015'\u2019]")
_POSSESSIVE = re.compile(r"['\u2019]s$")


def _unaccented(text: str) -> str | None:
    """`text` with its accents removed, or None when that does not give plain ASCII (Ł, ø and
    CJK have no lossless ASCII spelling, so no second spelling is searched for them)."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return bare if bare.isascii() else None


def _term(word: str) -> str:
    """One `all:` term. A compound word is searched as a quoted phrase of its parts (arXiv's
    search splits words at hyphens, so the phrase keeps the parts together and in order). A word
    with accents is searched as written (the API takes UTF-8) OR in its ASCII spelling, because
    arXiv metadata spells names both ways ("Erdős" and "Erdos")."""
    word = _POSSESSIVE.sub("", word)
    phrase = " ".join(p for p in _JOINERS.split(word) if p)
    spellings = [phrase]
    bare = _unaccented(phrase)
    if bare and bare != phrase:
        spellings.append(bare)
    terms = [f'all:"{s}"' if " " in s else f"all:{s}" for s in spellings]
    return terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")"


def build_search_query(query: str, max_terms: int = 8) -> str:
    """`all:` terms joined by AND (arXiv's search treats bare words as OR of phrases); stop
    words dropped; accented and hyphenated names kept whole (see `_term`)."""
    words = [w for w in _WORD.findall(query) if w.lower() not in _STOP]
    if not words:
        cleaned = " ".join(query.replace('"', " ").split())  # a quote would end the phrase
        return f'all:"{cleaned}"'
    return " AND ".join(_term(w) for w in words[:max_terms])


class ArxivClient:
    source = "arxiv"
    host = HOST

    def __init__(self, http: LiteratureHttp) -> None:
        self.http = http

    async def _query(self, params: dict[str, object]) -> list[Paper]:
        response = await self.http.get(API_URL, params=params, expect="xml")
        if response.status >= 500 or response.status in (401, 403):
            raise SourceUnavailable(HOST, f"HTTP {response.status}")
        papers, errors = parse_feed(response.text)
        if errors:
            raise ArxivQueryError("; ".join(errors))
        if response.status >= 400:
            raise ArxivQueryError(f"arXiv answered HTTP {response.status}")
        return papers

    async def search(self, query: str, max_results: int = 10) -> list[Paper]:
        return await self._query(
            {
                "search_query": build_search_query(query),
                "start": 0,
                "max_results": max_results,
                "sortBy": "relevance",
                "sortOrder": "descending",
            }
        )

    async def fetch(self, ids: list[str]) -> dict[str, Paper]:
        """Papers by version-less id; ids arXiv does not know are absent from the result."""
        wanted = [normalize_arxiv_id(i) or i for i in ids]
        if not wanted:
            return {}
        papers = await self._query({"id_list": ",".join(wanted), "start": 0, "max_results": len(wanted)})
        return {strip_arxiv_version(p.arxiv_id or ""): p for p in papers}
