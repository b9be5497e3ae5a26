"""Paper identifiers: arXiv ids (new and old style, versioned), DOIs and Semantic Scholar ids.

Checked before any request is made, so a typo ends in one line naming the id (exit 2) instead
of a round trip to three services. Normal forms:

* arXiv new style ``1204.5721`` / ``1706.03762v5`` (YYMM.NNNN until 2014, YYMM.NNNNN since),
  old style ``math/0601001`` / ``hep-th/9901001v2`` (a subject class such as ``math.AG/…`` is
  dropped: arXiv files the paper under the archive alone);
* DOI ``10.<registrant>/<suffix>``, lower-cased (DOIs are case-insensitive);
* Semantic Scholar paper id: 40 lower-case hex digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from eurekaclaw.errors import BadInputError

IdKind = Literal["arxiv", "doi", "s2"]

# Archives that had old-style identifiers (before April 2007).
OLD_ARCHIVES = frozenset(
    {
        "acc-phys",
        "adap-org",
        "alg-geom",
        "ao-sci",
        "astro-ph",
        "atom-ph",
        "bayes-an",
        "chao-dyn",
        "chem-ph",
        "cmp-lg",
        "comp-gas",
        "cond-mat",
        "cs",
        "dg-ga",
        "funct-an",
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math",
        "math-ph",
        "mtrl-th",
        "nlin",
        "nucl-ex",
        "nucl-th",
        "patt-sol",
        "physics",
        "plasm-ph",
        "q-alg",
        "q-bio",
        "q-fin",
        "quant-ph",
        "solv-int",
        "stat",
        "supr-con",
    }
)

_NEW_STYLE = re.compile(r"^(?P<yy>\d{2})(?P<mm>\d{2})\.(?P<num>\d{4,5})(?P<v>v\d+)?$")
_OLD_STYLE = re.compile(
    r"^(?P<archive>[a-z][a-z\-]*)(?:\.[A-Za-z\-]{2,})?/(?P<yy>\d{2})(?P<mm>\d{2})(?P<num>\d{3})(?P<v>v\d+)?$"
)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_S2 = re.compile(r"^[0-9a-f]{40}$")
_VERSION = re.compile(r"v\d+$")
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<id>.+)$", re.IGNORECASE)

_ARXIV_PREFIXES = ("arxiv:", "https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv.org/abs/")
_DOI_PREFIXES = ("doi:", "https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/")


@dataclass(frozen=True)
class PaperRef:
    kind: IdKind
    value: str  # normal form

    def __str__(self) -> str:
        return self.value


def _strip_prefix(raw: str, prefixes: tuple[str, ...]) -> str | None:
    low = raw.lower()
    for prefix in prefixes:
        if low.startswith(prefix):
            return raw[len(prefix) :]
    return None


def normalize_arxiv_id(raw: str) -> str | None:
    """The normal form of an arXiv id (version kept), or None when it is not one."""
    text = raw.strip()
    stripped = _strip_prefix(text, _ARXIV_PREFIXES)
    if stripped is not None:
        text = stripped
    text = text.removesuffix(".pdf").strip("/")
    match = _NEW_STYLE.match(text)
    if match:
        yy, mm, num = int(match["yy"]), int(match["mm"]), match["num"]
        if not 1 <= mm <= 12 or (yy, mm) < (7, 4):
            return None
        # Five-digit sequence numbers began in January 2015.
        if (len(num) == 5) != (yy >= 15):
            return None
        return f"{match['yy']}{match['mm']}.{num}{(match['v'] or '').lower()}"
    match = _OLD_STYLE.match(text.lower() if "/" in text else text)
    if match:
        yy, mm = int(match["yy"]), int(match["mm"])
        if match["archive"] not in OLD_ARCHIVES or not 1 <= mm <= 12:
            return None
        if not (yy >= 91 or yy <= 7):  # old-style ids ran from 1991 to March 2007
            return None
        return f"{match['archive']}/{match['yy']}{match['mm']}{match['num']}{match['v'] or ''}"
    return None


def strip_arxiv_version(arxiv_id: str) -> str:
    return _VERSION.sub("", arxiv_id.strip())


def normalize_doi(raw: str) -> str | None:
    """The lower-cased DOI without resolver prefix, or None when it is not a DOI."""
    text = raw.strip()
    stripped = _strip_prefix(text, _DOI_PREFIXES)
    if stripped is not None:
        text = unquote(stripped)
    text = text.strip().rstrip(".")
    if not _DOI.match(text):
        return None
    return text.lower()


def arxiv_id_from_doi(doi: str | None) -> str | None:
    """arXiv registers DOIs 10.48550/arXiv.<id> with DataCite; map them back to the id."""
    if not doi:
        return None
    match = _ARXIV_DOI.match(doi.strip())
    return normalize_arxiv_id(match["id"]) if match else None


def parse_paper_id(raw: str) -> PaperRef | None:
    """Classify and normalise one user-given id; None when it is none of the known forms."""
    text = (raw or "").strip()
    if not text:
        return None
    low = text.lower()
    if low.startswith("s2:"):
        text, low = text[3:], low[3:]
        return PaperRef("s2", low) if _S2.match(low) else None
    arxiv = normalize_arxiv_id(text)
    if arxiv:
        return PaperRef("arxiv", arxiv)
    doi = normalize_doi(text)
    if doi:
        from_doi = arxiv_id_from_doi(doi)
        return PaperRef("arxiv", from_doi) if from_doi else PaperRef("doi", doi)
    if _S2.match(low):
        return PaperRef("s2", low)
    return None


def validate_paper_ids(ids: list[str]) -> list[str]:
    """Normalised ids, duplicates removed in order; BadInputError naming the first bad id.

    Accepts arXiv ids (1204.5721, 1706.03762v5, math/0601001, hep-th/9901001v2, optionally
    with an ``arXiv:`` prefix or an arxiv.org/abs URL), DOIs (bare, ``doi:`` or doi.org URL)
    and 40-hex Semantic Scholar ids.
    """
    if not ids:
        raise BadInputError(
            "from-papers needs at least one paper id", hint="e.g. eurekaclaw from-papers 1204.5721 math/0601001"
        )
    out: list[str] = []
    for raw in ids:
        ref = parse_paper_id(raw)
        if ref is None:
            raise BadInputError(
                f"not a valid paper id: {raw!r}",
                hint="use an arXiv id (1204.5721, 1706.03762v5, math/0601001), a DOI "
                "(10.1000/xyz) or a Semantic Scholar id",
            )
        if ref.value not in out:
            out.append(ref.value)
    return out
