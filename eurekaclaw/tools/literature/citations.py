"""The citation verification ladder, and cite keys.

Ladder (fails closed): a DOI is looked up on CrossRef; an arXiv id on arXiv; otherwise — or
when those did not confirm the paper — its title is searched on OpenAlex, then on Semantic
Scholar. Each record a source returns is judged by matching.judge_record:

    verified     the title matches (no content word differs) AND authors, year or venue agree
    suspicious   a similar title that differs in a content word; or a matching title whose
                 authors (or, with no authors to agree, year / venue) say it is another work;
                 or a title confirmed by search while the citation's own DOI / arXiv id
                 resolves to another work (and no id confirmed it)
    unverified   the title matches but nothing else can be compared (the citation gives only a
                 title, or the sources' records lack its fields); or some source could not be
                 asked and none confirmed the paper
    not_found    no record with a similar title (similarity < 0.50)

A paper is `verified` only when some source confirmed it: a check that could not be made is
`unverified`, never `not_found` (we do not know) and never `verified` (we did not check).
"""

from __future__ import annotations

import asyncio
import string
from collections import defaultdict
from dataclasses import dataclass, field

from eurekaclaw.tools.literature.aio import gather_all
from eurekaclaw.tools.literature.arxiv import ArxivClient, ArxivQueryError
from eurekaclaw.tools.literature.crossref import CrossrefClient
from eurekaclaw.tools.literature.http import SourceUnavailable
from eurekaclaw.tools.literature.ids import strip_arxiv_version
from eurekaclaw.tools.literature.matching import RANK_NO_MATCH, cited_fields, judge_record
from eurekaclaw.tools.literature.openalex import OpenAlexClient
from eurekaclaw.tools.literature.records import ascii_fold, last_name, title_words
from eurekaclaw.tools.literature.semantic_scholar import SemanticScholarClient
from eurekaclaw.tools.literature.titles import SUSPICIOUS_AT, VERIFIED_AT, title_similarity
from eurekaclaw.types.artifacts import CitationStatus, Paper

__all__ = [
    "SUSPICIOUS_AT",
    "VERIFIED_AT",
    "CitationVerifier",
    "Verdict",
    "assign_cite_keys",
    "base_cite_key",
    "status_for",
    "title_similarity",
]

ARXIV_BATCH = 100
_KEY_STOP = frozenset("a an the on of in for and to with at by from is are as via towards toward".split())


def status_for(similarity: float) -> CitationStatus:
    """The band a title similarity alone falls in. Not the ladder's verdict, which comes from
    matching.judge_record: a title in the top band that differs in a content word is
    `suspicious`, and a matching title still needs an agreeing author, year or venue."""
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
    rank: int = RANK_NO_MATCH
    by_id: bool = False  # the record was fetched by the citation's own DOI / arXiv id
    title_close: bool = False

    @property
    def id_contradicts(self) -> bool:
        """The citation's own id resolved to a record that is another work: another title, or
        the same title by other authors (generic titles recur)."""
        return self.by_id and self.similarity is not None and self.status in ("suspicious", "not_found")


def _judge(cited: Paper, candidates: list[Paper], source: str, how: str, *, by_id: bool = False) -> Verdict:
    if not candidates:
        return Verdict("not_found", source, None, f"{source}: no match for {how}", by_id=by_id)
    judged = [(judge_record(cited, c, by_id=by_id), c) for c in candidates]
    # The best-confirming record, not merely the most similar title: a search for "Attention
    # is not all you need" also returns "Attention is all you need".
    best, found = max(judged, key=lambda jc: (jc[0].rank, jc[0].similarity))
    detail = f"{source} ({how}): {found.title!r}, similarity {best.similarity:.2f}; {best.explanation}"
    return Verdict(best.status, source, best.similarity, detail, best.rank, by_id, best.title_close)


@dataclass
class _Ladder:
    """What the sources said about one citation so far."""

    title_only: bool
    verdicts: list[Verdict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def done(self) -> bool:
        if any(v.status == "verified" for v in self.verdicts):
            return True
        return self.title_only and any(v.title_close for v in self.verdicts)


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
        self,
        paper: Paper,
        *,
        arxiv_found: dict[str, Paper] | None = None,
        arxiv_error: str | None = None,
    ) -> Paper:
        """A copy of `paper` with verification, verification_detail and similarity set."""
        checked, _ = await self._check(paper, arxiv_found=arxiv_found, arxiv_error=arxiv_error)
        return checked

    async def _check(
        self,
        paper: Paper,
        *,
        arxiv_found: dict[str, Paper] | None,
        arxiv_error: str | None,
    ) -> tuple[Paper, bool]:
        """(checked copy, whether any source answered about it)."""
        if not title_words(paper.title):
            return self._apply(paper, Verdict("unverified", "", None, "no title to check"), []), False
        # With nothing but a title to compare, a matching title is as far as any source can go.
        ladder = _Ladder(title_only=not cited_fields(paper))
        if paper.doi:
            await self._by_doi(paper, paper.doi, ladder)
        if paper.arxiv_id and not ladder.done():
            await self._by_arxiv(paper, paper.arxiv_id, ladder, arxiv_found, arxiv_error)
        await self._by_title(paper, ladder)
        return self._conclude(paper, ladder), bool(ladder.verdicts)

    async def _by_doi(self, paper: Paper, doi: str, ladder: _Ladder) -> None:
        try:
            found = await self.crossref.work(doi)
        except SourceUnavailable as exc:
            ladder.errors.append(f"CrossRef: {exc.reason}")
            return
        if found is None:
            ladder.verdicts.append(Verdict("not_found", "crossref", None, f"CrossRef: DOI {doi} not registered"))
        else:
            ladder.verdicts.append(_judge(paper, [found], "crossref", f"DOI {doi}", by_id=True))

    async def _by_arxiv(
        self,
        paper: Paper,
        arxiv_id: str,
        ladder: _Ladder,
        arxiv_found: dict[str, Paper] | None,
        arxiv_error: str | None,
    ) -> None:
        key = strip_arxiv_version(arxiv_id)
        if arxiv_found is None:
            arxiv_found, arxiv_error = await self._prefetch_arxiv([paper])
        if key in arxiv_found:
            ladder.verdicts.append(_judge(paper, [arxiv_found[key]], "arxiv", f"id {key}", by_id=True))
        elif arxiv_error:
            ladder.errors.append(arxiv_error)
        else:
            ladder.verdicts.append(Verdict("not_found", "arxiv", None, f"arXiv: no paper {key}"))

    async def _by_title(self, paper: Paper, ladder: _Ladder) -> None:
        for source, search in (("openalex", self.openalex.title_search), ("semantic_scholar", self._s2_title)):
            if ladder.done():
                break
            try:
                candidates = await search(paper.title)
            except SourceUnavailable as exc:
                ladder.errors.append(f"{source}: {exc.reason}")
                continue
            ladder.verdicts.append(_judge(paper, candidates, source, "title search"))

    def _conclude(self, paper: Paper, ladder: _Ladder) -> Paper:
        verdicts, errors = ladder.verdicts, ladder.errors
        best = max(verdicts, key=lambda v: (v.rank, v.similarity or 0.0), default=None)
        if best is None or (best.status == "not_found" and errors):
            # Some source could not be asked, and none confirmed the paper: we do not know.
            detail = "could not be checked: " + "; ".join(errors)
            return self._apply(paper, Verdict("unverified", "", None, detail), verdicts)
        contradiction = next((v for v in verdicts if v.id_contradicts), None)
        if contradiction is not None and best.title_close and not best.by_id:
            # The title exists, but the DOI / arXiv id the citation carries names another work
            # (and would go into the BibTeX entry): the citation as given is not that paper.
            best = Verdict(
                "suspicious",
                best.source,
                best.similarity,
                f"{best.detail}; but the citation's own id resolves to another work: {contradiction.detail}",
                best.rank,
                best.by_id,
                best.title_close,
            )
            return self._apply(paper, best, [v for v in verdicts if v is not contradiction])
        if best.status == "unverified" and errors:
            best.detail += "; not asked: " + "; ".join(errors)
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

        async def one(paper: Paper) -> tuple[Paper, bool]:
            async with gate:
                return await self._check(paper, arxiv_found=arxiv_found, arxiv_error=arxiv_error)

        results = await gather_all(*(one(p) for p in papers))
        # Not "some paper is not unverified": a title-only citation is unverified even after
        # every source answered.
        checks_ran = any(answered for _, answered in results)
        return [p for p, _ in results], checks_ran


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
