"""A domain plugin's shipped bibliography: classic results it builds on, checked once by hand.

`references.json` beside a plugin's module lists entries with their metadata and how they were
checked (see domains/mab/references.json). They let a paper cite Lai and Robbins when the
survey found nothing (offline). An entry without a title, an author, a year, an identifier
(DOI, arXiv id or URL) or a statement of how it was checked is not loaded: nothing is cited
that was not checked, and nothing is made up to fill a gap.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from eurekaclaw.types.artifacts import Paper

log = logging.getLogger(__name__)

FILE_NAME = "references.json"
MAX_BYTES = 256_000
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_ARXIV = re.compile(r"(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})")
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9:_\-.]{0,63}")


def shipped_source(plugin: str) -> str:
    return f"plugin:{plugin}"


def _paper(entry: dict[str, Any], plugin: str, checked: str) -> Paper | None:
    title = str(entry.get("title") or "").strip()
    authors = [str(a).strip() for a in entry.get("authors") or [] if str(a).strip()]
    year = entry.get("year")
    how = str(entry.get("how_checked") or "").strip()
    doi = str(entry.get("doi") or "").strip() or None
    arxiv = str(entry.get("arxiv_id") or "").strip() or None
    url = str(entry.get("url") or "").strip() or None
    key = str(entry.get("cite_key") or "").strip() or None
    if not (title and authors and isinstance(year, int) and how and (doi or arxiv or url)):
        return None
    if (doi and not _DOI.fullmatch(doi)) or (arxiv and not _ARXIV.fullmatch(arxiv)):
        return None
    if url and not url.startswith("https://"):
        return None
    paper_id = f"doi:{doi}" if doi else f"arxiv:{arxiv}" if arxiv else f"url:{url}"
    return Paper(
        paper_id=paper_id,
        title=title,
        authors=authors,
        year=year,
        venue=str(entry.get("venue") or "").strip(),
        doi=doi,
        arxiv_id=arxiv,
        url=url,
        sources=[shipped_source(plugin)],
        verification="verified",
        verification_detail=f"shipped with the {plugin} plugin, checked {checked}: {how}",
        cite_key=key if key and _KEY.fullmatch(key) else None,
    )


def load_references(path: Path, plugin: str) -> list[Paper]:
    """The checked entries of a plugin's references.json; [] when there is none. A damaged
    file or entry is skipped with a warning, never guessed at."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return []
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        log.warning("domain %s: %s unreadable (%s); no shipped references", plugin, path.name, exc)
        return []
    if not isinstance(data, dict) or not isinstance(data.get("references"), list):
        log.warning("domain %s: %s has no `references` list; no shipped references", plugin, path.name)
        return []
    checked = str(data.get("checked") or "").strip() or "once, date not recorded"
    papers: list[Paper] = []
    for entry in data["references"]:
        paper = _paper(entry, plugin, checked) if isinstance(entry, dict) else None
        if paper is None:
            log.warning("domain %s: a shipped reference lacks checked metadata and is not used", plugin)
            continue
        papers.append(paper)
    return papers
