"""The citation verification ladder, and cite keys.

Ladder (fails closed): a DOI is looked up on CrossRef; an arXiv id on arXiv; otherwise — or
when those did not confirm the paper — its title is searched on OpenAlex, then on Semantic
Scholar. Each answer is judged by title similarity = shared words / max(words of either title):

    >= 0.80  verified      0.50 – 0.80  suspicious      < 0.50  not_found

A paper is `verified` only when some source confirmed it. When no source confirmed it and at
least one source could not be asked (offline, throttled, down), it is `unverified`, never
`not_found` (we do not know) and never `verified` (we did not check).
"""

from __future__ import annotations

import asyncio
import string
from collections import defaultdict
from dataclasses import dataclass

from eurekaclaw.tools.literature.aio import gather_all
from eurekaclaw.tools.literature.arxiv import ArxivClient, ArxivQueryError
from eurekaclaw.tools.literature.crossref import CrossrefClient
from eurekaclaw.tools.literature.http import SourceUnavailable
from eurekaclaw.tools.literature.ids import strip_arxiv_version
from eurekaclaw.tools.literature.openalex import OpenAlexClient
from eurekaclaw.tools.literature.records import ascii_fold, last_name, make_paper, title_words
from eurekaclaw.tools.literature.semantic_scholar import SemanticScholarClient
from eurekaclaw.types.artifacts import CitationStatus, Paper

VERIFIED_AT = 0.80
SUSPICIOUS_AT = 0.50
ARXIV_BATCH = 100
_RANK = {"verified": 3, "suspicious": 2, "not_found": 1}
_KEY_STOP = frozenset("a an the on of in for and to with at by from is are as via towards toward".split())


def title_similarity(a: str, b: str) -> float:
    """Shared words / the larger word count (so a short title cannot match a long one)."""
    wa, wb = set(title_words(a)), set(title_words(b))
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / max(len(wa), len(wb))


def status_for(similarity: float) -> CitationStatus:
    if similarity >= VERIFIED_AT:
        return "verified"
    if similarity >= SUSPICIOUS_AT:
        return "suspicious"
    return "not_found"


@dataclass
class Verdict:
    status: CitationStatus
    source: str
    similarity: float | None
    detail: str


def _judge(title: str, candidates: list[Paper], source: str, how: str) -> Verdict:
    if not candidates:
        return Verdict("not_found", source, None, f"{source}: no match for {how}")
    best = max(candidates, key=lambda p: title_similarity(title, p.title))
    sim = title_similarity(title, best.title)
    status = status_for(sim)
    detail = f"{source} ({how}): {best.title!r}, similarity {sim:.2f}"
    return Verdict(status, source, round(sim, 4), detail)


class CitationVerifier:
    def __init__(
        self,
        crossref: CrossrefClient,
        arxiv: ArxivClient,
        openalex: OpenAlexClient,
        s2: SemanticScholarClient,
        *,
        concurrency: int = 4,
    ) -> None:
        self.crossref = crossref
        self.arxiv = arxiv
        self.openalex = openalex
        self.s2 = s2
        self.concurrency = concurrency

    async def _prefetch_arxiv(self, papers: list[Paper]) -> tuple[dict[str, Paper], str | None]:
        """One id_list request per 100 arXiv ids instead of one per paper (arXiv: 1 req / 3 s)."""
        ids = sorted({strip_arxiv_version(p.arxiv_id) for p in papers if p.arxiv_id})
        found: dict[str, Paper] = {}
        for start in range(0, len(ids), ARXIV_BATCH):
            try:
                found.update(await self.arxiv.fetch(ids[start : start + ARXIV_BATCH]))
            except (SourceUnavailable, ArxivQueryError) as exc:
                return found, f"arXiv: {exc}"
        return found, None

    async def verify(
        self, paper: Paper, *, arxiv_found: dict[str, Paper] | None = None,
        arxiv_error: str | None = None,
    ) -> Paper:
        """A copy of `paper` with verification, verification_detail and similarity set."""
        verdicts: list[Verdict] = []
        errors: list[str] = []
        title = paper.title

        def done() -> bool:
            return any(v.status == "verified" for v in verdicts)

        if not title_words(title):
            return self._apply(paper, Verdict("unverified", "", None, "no title to check"), [])

        if paper.doi:
            try:
                found = await self.crossref.work(paper.doi)
            except SourceUnavailable as exc:
                errors.append(f"CrossRef: {exc.reason}")
            else:
                if found is None:
                    verdicts.append(Verdict("not_found", "crossref", None, f"CrossRef: DOI {paper.doi} not registered"))
                else:
                    verdicts.append(_judge(title, [found], "crossref", f"DOI {paper.doi}"))

        if paper.arxiv_id and not done():
            key = strip_arxiv_version(paper.arxiv_id)
            if arxiv_found is None:
                arxiv_found, arxiv_error = await self._prefetch_arxiv([paper])
            if key in arxiv_found:
                verdicts.append(_judge(title, [arxiv_found[key]], "arxiv", f"id {key}"))
            elif arxiv_error:
                errors.append(arxiv_error)
            else:
                verdicts.append(Verdict("not_found", "arxiv", None, f"arXiv: no paper {key}"))

        for source, search in (("openalex", self.openalex.title_search), ("semantic_scholar", self._s2_title)):
            if done():
                break
            try:
                candidates = await search(title)
            except SourceUnavailable as exc:
                errors.append(f"{source}: {exc.reason}")
                continue
            verdicts.append(_judge(title, candidates, source, "title search"))

        best = max(verdicts, key=lambda v: (_RANK[v.status], v.similarity or 0.0), default=None)
        if best is None or (best.status == "not_found" and errors):
            # Some source could not be asked, and none confirmed the paper: we do not know.
            detail = "could not be checked: " + "; ".join(errors)
            return self._apply(paper, Verdict("unverified", "", None, detail), verdicts)
        return self._apply(paper, best, verdicts)

    async def _s2_title(self, title: str) -> list[Paper]:
        return await self.s2.search(title, limit=5)

    @staticmethod
    def _apply(paper: Paper, verdict: Verdict, verdicts: list[Verdict]) -> Paper:
        out = paper.model_copy(deep=True)
        out.verification = verdict.status
        out.similarity = verdict.similarity
        others = [v.detail for v in verdicts if v is not verdict and v.detail]
        out.verification_detail = "; ".join([verdict.detail] + others)
        return out

    async def verify_all(self, papers: list[Paper]) -> tuple[list[Paper], bool]:
        """(checked copies in the same order, checks_ran). checks_ran is False when no source
        answered at all, e.g. offline: then every paper is `unverified`."""
        arxiv_found, arxiv_error = await self._prefetch_arxiv(papers)
        gate = asyncio.Semaphore(self.concurrency)

        async def one(paper: Paper) -> Paper:
            async with gate:
                return await self.verify(paper, arxiv_found=arxiv_found, arxiv_error=arxiv_error)

        checked = await gather_all(*(one(p) for p in papers))
        checks_ran = any(p.verification != "unverified" for p in checked)
        return checked, checks_ran

    async def verify_citation(self, title: str, *, doi: str | None = None, arxiv_id: str | None = None) -> Paper:
        """Check a citation given only by title (and optional ids), e.g. one a model wrote."""
        return await self.verify(make_paper("citation", title=title, doi=doi, arxiv_id=arxiv_id))


# --------------------------------------------------------------------------------------------
# cite keys
# --------------------------------------------------------------------------------------------


def _letters(text: str) -> str:
    return "".join(ch for ch in ascii_fold(text).lower() if ch in string.ascii_lowercase)


def base_cite_key(paper: Paper) -> str:
    author = _letters(last_name(paper.authors[0])) if paper.authors else ""
    words = [w for w in title_words(paper.title) if w not in _KEY_STOP and w.isalpha()]
    return f"{author or 'anon'}{paper.year or 'nd'}{words[0] if words else 'untitled'}"


def assign_cite_keys(papers: list[Paper]) -> list[Paper]:
    """Copies with deterministic cite keys (e.g. vaswani2017attention); colliding keys get
    a, b, … in order of paper_id so the same bibliography always gets the same keys."""
    out = [p.model_copy(deep=True) for p in papers]
    groups: dict[str, list[Paper]] = defaultdict(list)
    for paper in out:
        groups[base_cite_key(paper)].append(paper)
    for key, members in groups.items():
        if len(members) == 1:
            members[0].cite_key = key
            continue
        for i, paper in enumerate(sorted(members, key=lambda p: p.paper_id)):
            paper.cite_key = f"{key}{_suffix(i)}"
    return out


def _suffix(i: int) -> str:
    letters = string.ascii_lowercase
    return letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]
