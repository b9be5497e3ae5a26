"""Merging the same work found by several services.

Two records are the same work when they share a DOI, or a version-less arXiv id, or — when
neither has an id that contradicts the other — the same normalised title, first author's
family name and year. The merged record keeps every source, the richest abstract and the
largest citation count, takes year and venue by source precedence (`FIELD_PRECEDENCE`, not
by arrival order), and gets its canonical id again.
"""

from __future__ import annotations

from eurekaclaw.tools.literature.ids import strip_arxiv_version
from eurekaclaw.tools.literature.records import (
    ascii_fold,
    canonical_paper_id,
    last_name,
    title_words,
)
from eurekaclaw.types.artifacts import Paper


def title_key(paper: Paper) -> str:
    first = ascii_fold(last_name(paper.authors[0])).lower() if paper.authors else ""
    return f"{' '.join(title_words(paper.title))}|{first}|{paper.year or ''}"


def _conflict(a: str | None, b: str | None) -> bool:
    return bool(a and b and a != b)


def same_work(a: Paper, b: Paper) -> bool:
    if a.doi and b.doi and a.doi == b.doi:
        return True
    arx_a = strip_arxiv_version(a.arxiv_id) if a.arxiv_id else None
    arx_b = strip_arxiv_version(b.arxiv_id) if b.arxiv_id else None
    if arx_a and arx_b and arx_a == arx_b:
        return True
    if _conflict(a.doi, b.doi) or _conflict(arx_a, arx_b):
        return False
    return title_key(a) == title_key(b)


# Which service's value wins for a field, best first. Publication year and venue: the
# publisher's registration (CrossRef) states the version of record; Semantic Scholar and
# OpenAlex usually carry it too; arXiv's `published` is the first preprint version, so its year
# (and its placeholder venue "arXiv") is only a fallback. A record merged earlier ranks as its
# best source. Sources not listed ("citation": what a model wrote) rank last.
FIELD_PRECEDENCE: dict[str, tuple[str, ...]] = {
    "year": ("crossref", "semantic_scholar", "openalex", "arxiv"),
    "venue": ("crossref", "openalex", "semantic_scholar", "arxiv"),
}


def source_rank(paper: Paper, field: str) -> int:
    order = FIELD_PRECEDENCE[field]
    ranks = [order.index(s) for s in paper.sources if s in order]
    return min(ranks) if ranks else len(order)


def _is_placeholder_venue(venue: str) -> bool:
    return venue.strip().lower() in {"", "arxiv", "arxiv.org", "arxiv (cornell university)"}


def merge_two(base: Paper, other: Paper) -> Paper:
    """`base` enriched with what `other` adds. Year and venue follow `FIELD_PRECEDENCE`,
    whichever record came first; for other fields base's non-empty values win except where
    the other record is plainly richer (longer abstract, larger citation count)."""
    data = base.model_copy(deep=True)
    for name in ("doi", "arxiv_id", "s2_id", "openalex_id", "url"):
        if not getattr(data, name) and getattr(other, name):
            setattr(data, name, getattr(other, name))
    if other.year and (not data.year or source_rank(other, "year") < source_rank(base, "year")):
        data.year = other.year
    if not _is_placeholder_venue(other.venue) and (
        _is_placeholder_venue(data.venue) or source_rank(other, "venue") < source_rank(base, "venue")
    ):
        data.venue = other.venue
    elif not data.venue and other.venue:
        data.venue = other.venue
    if not data.authors and other.authors:
        data.authors = list(other.authors)
    if len(other.abstract) > len(data.abstract):
        data.abstract = other.abstract
    if other.citation_count is not None:
        data.citation_count = max(data.citation_count or 0, other.citation_count)
    for source in other.sources:
        if source not in data.sources:
            data.sources.append(source)
    data.paper_id = canonical_paper_id(data)
    return data


def dedupe(papers: list[Paper]) -> list[Paper]:
    """Merged papers in order of first appearance."""
    merged: list[Paper] = []
    for paper in papers:
        for i, existing in enumerate(merged):
            if same_work(existing, paper):
                merged[i] = merge_two(existing, paper)
                break
        else:
            fresh = paper.model_copy(deep=True)
            fresh.paper_id = canonical_paper_id(fresh)
            merged.append(fresh)
    return merged
