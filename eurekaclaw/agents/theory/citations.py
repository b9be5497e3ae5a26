"""Known lemmas are recorded at level "cited" only when their citation names a paper of the
session's bibliography whose existence was verified (paper id, cite key, arXiv id or DOI)."""

from __future__ import annotations

import re

from eurekaclaw.types.artifacts import Bibliography, Paper

_PREFIXES = (
    "https://doi.org/",
    "http://doi.org/",
    "doi.org/",
    "https://arxiv.org/abs/",
    "http://arxiv.org/abs/",
    "arxiv.org/abs/",
    "doi:",
    "arxiv:",
)
_VERSION = re.compile(r"v\d+$")
_CITE = re.compile(r"\\cite[pt]?\*?(?:\[[^\]]*\])?\{([^}]*)\}")


def normalise(ref: str) -> str:
    text = ref.strip().strip("[](){}<>.,;").lower()
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return _VERSION.sub("", text) if re.match(r"^\d{4}\.\d{4,5}(v\d+)?$", text) else text


def _candidates(citation: str) -> set[str]:
    inner = _CITE.findall(citation)
    parts = [p for group in inner for p in group.split(",")] if inner else [citation]
    out = set()
    for part in parts:
        out.add(normalise(part))
        out.update(normalise(tok) for tok in re.split(r"[\s,;]+", part) if tok)
    out.discard("")
    return out


def _keys(paper: Paper) -> set[str]:
    return {normalise(k) for k in (paper.paper_id, paper.cite_key, paper.arxiv_id, paper.doi) if k}


def verified_paper(bib: Bibliography | None, citation: str | None) -> Paper | None:
    if bib is None or not citation:
        return None
    wanted = _candidates(citation)
    for paper in bib.papers:
        if paper.verification == "verified" and wanted & _keys(paper):
            return paper
    return None
