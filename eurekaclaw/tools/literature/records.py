"""Building `Paper` records from service answers, and the text normalisation every part of the
literature package shares (titles, author names)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from eurekaclaw.tools.literature.ids import (
    arxiv_id_from_doi,
    normalize_arxiv_id,
    normalize_doi,
    strip_arxiv_version,
)
from eurekaclaw.types.artifacts import Paper

_WORD = re.compile(r"[a-z0-9]+")
_SPACE = re.compile(r"\s+")


def ascii_fold(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


def _cp1252_c1() -> dict[int, str]:
    """C1 control code points (U+0080–U+009F) that are really cp1252 bytes decoded as
    latin-1 — mojibake services serve, e.g. U+0093/U+0094 for curly double quotes — mapped to
    the characters cp1252 means. The five bytes cp1252 leaves undefined are absent."""
    table: dict[int, str] = {}
    for code in range(0x80, 0xA0):
        try:
            table[code] = bytes([code]).decode("cp1252")
        except UnicodeDecodeError:
            continue
    return table


_C1_AS_CP1252 = _cp1252_c1()


def _strip_controls(text: str) -> str:
    """cp1252 smart quotes and dashes restored; every other control character dropped
    (whitespace controls become spaces so words do not run together)."""
    out: list[str] = []
    for ch in text.translate(_C1_AS_CP1252):
        if unicodedata.category(ch) != "Cc":
            out.append(ch)
        elif ch in "\t\n\r\f\v":
            out.append(" ")
    return "".join(out)


def clean_text(text: str | None) -> str:
    """Collapse the hard wraps and indentation that Atom feeds put in titles and abstracts,
    and remove the control characters some services pass through (see `_strip_controls`)."""
    return _SPACE.sub(" ", _strip_controls(text or "")).strip()


def title_words(title: str) -> list[str]:
    """Lower-case alphanumeric words of a title, accents folded (for matching titles)."""
    return _WORD.findall(ascii_fold(title).lower())


def last_name(author: str) -> str:
    """The family name of "Given Family" or "Family, Given"."""
    author = clean_text(author)
    if "," in author:
        return author.split(",", 1)[0].strip()
    parts = author.split()
    return parts[-1] if parts else ""


def canonical_paper_id(paper: Paper) -> str:
    """The stable key a paper is referred to by: arXiv id, else DOI, else service ids."""
    if paper.arxiv_id:
        return "arxiv:" + strip_arxiv_version(paper.arxiv_id)
    if paper.doi:
        return "doi:" + paper.doi
    if paper.s2_id:
        return "s2:" + paper.s2_id
    if paper.openalex_id:
        return "openalex:" + paper.openalex_id
    words = "-".join(title_words(paper.title)[:8])
    return f"title:{words}:{paper.year or 'nd'}"


def make_paper(source: str, *, title: str, doi: str | None = None, arxiv_id: str | None = None, **fields: Any) -> Paper:
    """A Paper with normalised ids, its `sources` set and its canonical paper_id."""
    norm_doi = normalize_doi(doi) if doi else None
    norm_arxiv = normalize_arxiv_id(arxiv_id) if arxiv_id else None
    if norm_arxiv is None:
        norm_arxiv = arxiv_id_from_doi(norm_doi)
    if norm_arxiv:
        norm_arxiv = strip_arxiv_version(norm_arxiv)
    # arXiv's own DataCite DOI says nothing the arXiv id does not; keep the id only.
    if norm_doi and arxiv_id_from_doi(norm_doi):
        norm_doi = None
    # Every text field is cleaned here, whichever service it came from, so no control
    # character reaches a prompt or the BibTeX file.
    for name in ("abstract", "venue"):
        if isinstance(fields.get(name), str):
            fields[name] = clean_text(fields[name])
    if fields.get("authors") is not None:
        fields["authors"] = [a for a in (clean_text(a) for a in fields["authors"]) if a]
    paper = Paper(
        paper_id="",
        title=clean_text(title),
        doi=norm_doi,
        arxiv_id=norm_arxiv,
        sources=[source],
        **{k: v for k, v in fields.items() if v is not None},
    )
    paper.paper_id = canonical_paper_id(paper)
    return paper
