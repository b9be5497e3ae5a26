"""LiteratureService: the four clients behind one object, queried in parallel.

When a source is down, throttled or unreachable the others carry the answer and the source is
recorded in `unavailable` (source → reason). `offline` says that no source answered at all and
at least one could not even be connected to.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

from eurekaclaw.config import Settings
from eurekaclaw.tools.literature import arxiv as arxiv_mod
from eurekaclaw.tools.literature import crossref as crossref_mod
from eurekaclaw.tools.literature import openalex as openalex_mod
from eurekaclaw.tools.literature import semantic_scholar as s2_mod
from eurekaclaw.tools.literature.aio import gather_all
from eurekaclaw.tools.literature.arxiv import ArxivClient, ArxivQueryError
from eurekaclaw.tools.literature.citations import CitationVerifier
from eurekaclaw.tools.literature.crossref import CrossrefClient
from eurekaclaw.tools.literature.dedup import dedupe
from eurekaclaw.tools.literature.http import HostPolicy, LiteratureHttp, SourceUnavailable
from eurekaclaw.tools.literature.ids import parse_paper_id, strip_arxiv_version
from eurekaclaw.tools.literature.openalex import OpenAlexClient
from eurekaclaw.tools.literature.semantic_scholar import SemanticScholarClient
from eurekaclaw.types.artifacts import Paper

log = logging.getLogger(__name__)
T = TypeVar("T")

SOURCE_LABELS = {
    "arxiv": "arXiv",
    "semantic_scholar": "Semantic Scholar",
    "openalex": "OpenAlex",
    "crossref": "CrossRef",
}
HOST_SOURCES = {
    arxiv_mod.HOST: "arxiv",
    s2_mod.HOST: "semantic_scholar",
    openalex_mod.HOST: "openalex",
    crossref_mod.HOST: "crossref",
}


@dataclass
class FetchOutcome:
    found: dict[str, Paper] = field(default_factory=dict)  # requested id -> paper
    missing: list[str] = field(default_factory=list)  # a source said: no such paper
    unreachable: list[str] = field(default_factory=list)  # no source could be asked


def build_http(
    settings: Settings, *, transport: httpx.AsyncBaseTransport | None = None, **overrides: Any
) -> LiteratureHttp:
    def policy(interval: float) -> HostPolicy:
        return HostPolicy(
            min_interval_s=interval,
            max_retries=settings.literature_max_retries,
            breaker_failures=settings.literature_breaker_failures,
            breaker_cooldown_s=settings.literature_breaker_cooldown_s,
        )

    policies = {
        arxiv_mod.HOST: policy(settings.arxiv_min_interval_s),
        s2_mod.HOST: policy(settings.s2_min_interval_s),
        openalex_mod.HOST: policy(settings.openalex_min_interval_s),
        crossref_mod.HOST: policy(settings.crossref_min_interval_s),
    }
    kwargs: dict[str, Any] = {
        "cache_dir": Path(settings.eurekaclaw_dir) / "cache" / "http",
        "cache_ttl_s": settings.literature_cache_ttl_s,
        "policies": policies,
        "default_policy": policy(0.5),
        "timeout_s": settings.literature_timeout_s,
        "deadline_s": settings.literature_deadline_s,
        "offline": settings.eurekaclaw_offline,
        "transport": transport,
    }
    kwargs.update(overrides)
    return LiteratureHttp(**kwargs)


def _bind(fn: Callable[[str], Awaitable[T]], arg: str) -> Callable[[], Awaitable[T]]:
    return lambda: fn(arg)


def _outcome(ids: list[str], found: dict[str, Paper], answered: set[str]) -> FetchOutcome:
    """Every requested id lands in exactly one place: found, missing (a source answered and had
    nothing) or unreachable (no source could be asked; never read as "no such paper")."""
    out = FetchOutcome(found=found)
    for i in ids:
        if i not in found:
            (out.missing if i in answered else out.unreachable).append(i)
    return out


class LiteratureService:
    def __init__(self, http: LiteratureHttp, *, s2_api_key: str | None = None, mailto: str | None = None) -> None:
        self.http = http
        self.arxiv = ArxivClient(http)
        self.s2 = SemanticScholarClient(http, s2_api_key)
        self.openalex = OpenAlexClient(http, mailto)
        self.crossref = CrossrefClient(http, mailto)
        self.verifier = CitationVerifier(self.crossref, self.arxiv, self.openalex, self.s2)
        self.unavailable: dict[str, str] = {}
        self.answered: set[str] = set()
        self._connect_failures: set[str] = set()

    @classmethod
    def from_settings(cls, settings: Settings, **http_overrides: Any) -> LiteratureService:
        key = settings.s2_api_key.get_secret_value() if settings.s2_api_key else None
        return cls(build_http(settings, **http_overrides), s2_api_key=key, mailto=settings.openalex_mailto)

    async def aclose(self) -> None:
        await self.http.aclose()

    # --- bookkeeping ----------------------------------------------------------------------------
    async def _guard(self, source: str, call: Callable[[], Awaitable[T]]) -> tuple[bool, T | None]:
        """(answered, result); failures of a source are recorded, never raised."""
        try:
            result = await call()
        except SourceUnavailable as exc:
            self.unavailable.setdefault(source, exc.reason)
            if exc.connect:
                self._connect_failures.add(source)
            return False, None
        except ArxivQueryError as exc:
            log.info("arXiv rejected a query: %s", exc)
            self.answered.add(source)
            return True, None
        self.answered.add(source)
        return True, result

    @property
    def offline(self) -> bool:
        return self.http.offline or (not self.answered and bool(self._connect_failures))

    def unavailable_sources(self) -> list[str]:
        """Sources that could not be used, as "Label: reason": never answered, or their
        breaker is open at the end."""
        reasons = {s: r for s, r in self.unavailable.items() if s not in self.answered}
        for host, reason in self.http.unavailable_hosts().items():
            source = HOST_SOURCES.get(host)
            if source:
                reasons.setdefault(source, reason)
        return [f"{SOURCE_LABELS.get(s, s)}: {r}" for s, r in sorted(reasons.items())]

    # --- queries --------------------------------------------------------------------------------
    async def search(self, query: str, *, limit: int = 10) -> list[Paper]:
        """arXiv, Semantic Scholar and OpenAlex in parallel; merged, interleaved by rank so
        every source's best hits come first."""
        results = await gather_all(
            self._guard("arxiv", lambda: self.arxiv.search(query, limit)),
            self._guard("semantic_scholar", lambda: self.s2.search(query, limit)),
            self._guard("openalex", lambda: self.openalex.search(query, limit)),
        )
        lists = [r or [] for _, r in results]
        interleaved = [lst[i] for i in range(max(map(len, lists), default=0)) for lst in lists if i < len(lst)]
        return dedupe(interleaved)

    async def fetch_ids(self, ids: list[str]) -> FetchOutcome:
        """Exactly the given (normalised) ids: arXiv ids from arXiv, others from Semantic
        Scholar, then CrossRef/OpenAlex for DOIs; Semantic Scholar stands in when arXiv is down.
        An id is `missing` only when a source answered for it, else `unreachable`."""
        refs = {i: parse_paper_id(i) for i in ids}
        arxiv_ids = [i for i, r in refs.items() if r is not None and r.kind == "arxiv"]
        other_ids = [i for i, r in refs.items() if r is not None and r.kind != "arxiv"]

        found, answered = await self._fetch_arxiv(arxiv_ids)
        pending = [i for i in arxiv_ids if i not in answered] + other_ids
        s2_found, s2_answered = await self._fetch_s2(pending)
        found.update(s2_found)
        answered |= s2_answered
        dois = {
            i: ref.value for i in other_ids if i not in found and (ref := refs[i]) is not None and ref.kind == "doi"
        }
        doi_found, doi_answered = await self._fetch_dois(dois)
        found.update(doi_found)
        answered |= doi_answered
        return _outcome(ids, found, answered)

    # Each step returns (requested id -> paper, ids a source answered for, found or not).
    async def _fetch_arxiv(self, arxiv_ids: list[str]) -> tuple[dict[str, Paper], set[str]]:
        if not arxiv_ids:
            return {}, set()
        ok, found = await self._guard("arxiv", lambda: self.arxiv.fetch(arxiv_ids))
        if not ok:
            return {}, set()
        by_id = found or {}
        papers = {i: p for i in arxiv_ids if (p := by_id.get(strip_arxiv_version(i))) is not None}
        return papers, set(arxiv_ids)

    async def _fetch_s2(self, ids: list[str]) -> tuple[dict[str, Paper], set[str]]:
        if not ids:
            return {}, set()
        ok, found = await self._guard("semantic_scholar", lambda: self.s2.fetch(ids))
        if not ok:
            return {}, set()
        by_id = found or {}
        return {i: by_id[i] for i in ids if i in by_id}, set(ids)

    async def _fetch_dois(self, dois: dict[str, str]) -> tuple[dict[str, Paper], set[str]]:
        """Requested id -> DOI; CrossRef first, OpenAlex when CrossRef has nothing."""
        papers: dict[str, Paper] = {}
        answered: set[str] = set()
        for i, doi in dois.items():
            for source, lookup in (("crossref", self.crossref.work), ("openalex", self.openalex.work)):
                ok, paper = await self._guard(source, _bind(lookup, doi))
                if ok:
                    answered.add(i)
                if paper is not None:
                    papers[i] = paper
                    break
        return papers, answered

    async def related(self, paper: Paper, *, limit: int = 15) -> list[Paper]:
        """Works the paper cites, from Semantic Scholar."""
        ref = paper.s2_id or (f"arXiv:{strip_arxiv_version(paper.arxiv_id)}" if paper.arxiv_id else None)
        if ref is None and paper.doi:
            ref = f"DOI:{paper.doi}"
        if ref is None:
            return []
        ok, found = await self._guard("semantic_scholar", lambda: self.s2.references(ref, limit))
        return dedupe(found or [])

    async def verify(self, papers: list[Paper]) -> tuple[list[Paper], bool]:
        """The citation ladder over `papers` (cached answers count; see citations.py)."""
        return await self.verifier.verify_all(papers)
