"""Which version of a session's paper an evaluation scores.

`eurekaclaw review --revise` adds paper versions beside the writer's paper and lists them in
review/versions.json (review/history.py owns that file and names the versions' files). The
evaluation reads only the list's last entry, so it scores the paper a reader sees as current and
never has to guess a file name; review/ builds on these two names rather than repeating them
(agents/ may not import review/).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eurekaclaw.store.files import read_json
from eurekaclaw.types.artifacts import PaperOutput

REVIEW_DIR = "review"
VERSIONS = "versions.json"
WRITER_TEX = "paper.tex"


@dataclass(frozen=True)
class ScoredPaper:
    """The paper an evaluation scores: its version number and TeX file (None: none listed)."""

    version: int
    tex_file: str | None
    revised: bool = False  # the session has review revisions (version 1 is then not the only one)

    def note(self) -> str:
        """The report's first note for a revised session ("" for the writer's only paper)."""
        if not self.revised:
            return ""
        where = self.tex_file or "no TeX file listed"
        return f"scores paper version {self.version}, the current one ({where})"


def _listed_versions(session_dir: Path) -> list[dict[str, Any]]:
    """The entries of review/versions.json that carry a version number (a damaged file is moved
    aside by read_json: the revisions are then unknown and the writer's paper is scored)."""
    data = read_json(Path(session_dir) / REVIEW_DIR / VERSIONS, None)
    items = data.get("versions") if isinstance(data, dict) else None
    return [v for v in items or [] if isinstance(v, dict) and isinstance(v.get("version"), int)]


def current_paper(session_dir: Path | None, paper: PaperOutput | None) -> ScoredPaper:
    """The newest listed revision, else the writer's paper (version 1, as paper.json names it)."""
    listed = _listed_versions(session_dir) if session_dir is not None else []
    if listed:
        last = max(listed, key=lambda v: v["version"])
        tex = last.get("tex_file")
        return ScoredPaper(version=last["version"], tex_file=tex if isinstance(tex, str) else None, revised=True)
    tex = paper.tex_file if isinstance(paper, PaperOutput) and paper.tex_file else WRITER_TEX
    return ScoredPaper(version=1, tex_file=tex)
